# One target per job; CI calls these and nothing else.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: demo test test-chain-rust test-chain-bindings test-chain-c test-chain-node test-chain-dist dist dist-build cli-wheel cli-dist test-dist test-wasm lint-workflows test-core test-compat test-conformance test-cli test-live test-py test-node test-c test-go check-generated errors vectors bench peer-harness fmt \
	record-profiles \
	fuzz test-fuzz test-fuzz-native test-fuzz-py fuzz-build

demo:
	$(CARGO) run --quiet --release -p hrwhash-cli -- simulate

# Every suite, in three chains that run side by side: much of each suite is single-threaded (the
# Python, C and Go test runs, valgrind, the references), so on 2 cores two chains finish in little
# more than the time of one. Within a chain the order matters: later suites reuse what earlier ones
# built, and no two suites rebuild the same files at once. Across chains only cargo's target
# directory is shared, and cargo locks it while it builds. `make test TEST_JOBS=1` runs them one
# after another.
#
# The Python wheel is the longest build, so test-py starts at once. test-dist packs that wheel and
# runs npm in bindings-node, so it waits for test-py and test-node (test-chain-dist); the Node
# addon and the C library it packs (dist-build, zig-linked release builds) are built ahead, after
# test-node, and the Rust suites follow them. test-live, whose followers run in Python, Node, Go
# and the CLI, needs the Python venv and the Node addon too, so it opens test-chain-dist.
# record-profiles, which shares nothing with the
# others, evens out the chains' lengths.
#
# Each suite's output is also kept in target/test-logs/<suite>.log. When one fails, the chains
# that did not fail still run to their end (--keep-going), and the last thing make test prints is
# the name of every failed suite with the end of its output: a CI log that keeps only its tail
# still shows what failed and why.
TEST_JOBS ?= 3
TEST_LOGS := $(CURDIR)/target/test-logs
test:
	@rm -rf $(TEST_LOGS) && mkdir -p $(TEST_LOGS)
	@$(MAKE) --no-print-directory --keep-going -j$(TEST_JOBS) --output-sync=target test-chain-rust test-chain-bindings test-chain-c test-chain-dist || { \
	  for t in $$(cat $(TEST_LOGS)/failed 2>/dev/null); do \
	    echo "==== make test: $$t failed; the last 150 lines of its output ($(TEST_LOGS)/$$t.log):"; \
	    tail -n 150 $(TEST_LOGS)/$$t.log; \
	  done; \
	  echo "make test failed: $$(cat $(TEST_LOGS)/failed 2>/dev/null | xargs || echo 'no suite recorded a failure')"; exit 1; }

# Each suite's wall time is printed after it, to show which chain is the longest.
chain = mkdir -p $(TEST_LOGS) && $(foreach t,$(1),s=$$SECONDS && { { $(MAKE) --no-print-directory $(t) 2>&1 | tee $(TEST_LOGS)/$(t).log; \
  test "$${PIPESTATUS[0]}" = 0; } || { echo $(t) >> $(TEST_LOGS)/failed; false; }; } && \
  echo "make test: $(t) took $$((SECONDS - s)) s" &&) true
test-chain-node:
	+@$(call chain,test-node dist-build)
test-chain-rust: test-chain-node
	+@$(call chain,check-generated test-core test-compat test-conformance test-cli)
test-chain-bindings:
	+@$(call chain,test-py test-fuzz-py record-profiles)
test-chain-dist: test-chain-bindings test-chain-node
	+@$(call chain,test-live test-dist)
test-chain-c:
	+@$(call chain,test-c test-go lint-workflows test-fuzz-native)

test-core:
	$(CARGO) fmt --all -- --check
	$(CARGO) test -p hrwhash
	$(CARGO) test -p hrwhash --no-default-features
	$(CARGO) test -p hrwhash --no-default-features --features json
	$(CARGO) build -p hrwhash --no-default-features
	@# Without features a placement compiles SipHash and nothing else.
	test "$$($(CARGO) tree -p hrwhash -e normal --no-default-features --prefix none | cut -d' ' -f1 | sort -u | xargs)" = "hrwhash siphasher"
	$(CARGO) test --release -p hrwhash --test properties -- --include-ignored
	$(CARGO) test --release -p hrwhash --test replica_balance -- --include-ignored
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hrwhash --no-deps

# The compatibility profiles (compat/, crate hrwhash-compat) against their recorded vectors.
test-compat:
	$(CARGO) test -p hrwhash-compat
	$(CARGO) build -p hrwhash-compat --no-default-features
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hrwhash-compat --no-deps

test-conformance:
	$(CARGO) test -p hrwhash-conformance
	python3 -m unittest discover -s conformance/api -p "test_*.py"
	python3 conformance/api/table.py check
	$(CARGO) test -p hrwhash-errors
	python3 -m unittest discover -s conformance/reference -p "test_*.py"
	python3 conformance/reference/hrw_reference.py conformance/vectors.json
	python3 conformance/reference/view_reference.py conformance/views.json
	python3 conformance/reference/transition_reference.py conformance/transitions.json
	python3 conformance/reference/live_view_reference.py conformance/live-view.json
	python3 conformance/reference/live_view_reference.py conformance/endpointslices.json
	python3 conformance/reference/hrw_reference.py conformance/vectors-edge.json
	python3 conformance/reference/policy_slot_table.py conformance/policies/slot-table.json
	python3 conformance/reference/policy_slot_table_v2.py conformance/policies/slot-table-v2.json
	python3 conformance/reference/slot_history_reference.py conformance/policies/slot-history-v1.json
	python3 conformance/reference/policy_domains.py conformance/policies/domains.json
	python3 conformance/reference/policy_bounded_load.py conformance/policies/bounded-load.json
	python3 conformance/reference/policy_bounded_load.py conformance/policies/bounded-load-boundaries.json
	python3 conformance/reference/policy_replica_balance.py conformance/policies/replica-balance-v2.json

test-cli:
	$(CARGO) test -p hrwhash-cli

# Live views end to end: hrwhash-live's sources and publishers against a real etcd, then the
# multi-process proof (live/tests/followers.py): etcd and memcached on loopback, followers in every
# language this tree has (the CLI's `view watch`, Go's cmd/hrwhash-follow, Python's hrwhash.live
# from bindings-python/.venv, which test-py installs), etcd killed, history compacted, forged
# documents refused, no read lost. After test-py in its chain, for the venv.
test-live:
	$(CARGO) test -p hrwhash-live
	$(CARGO) build -p hrwhash-cli
	python3 live/tests/followers.py target/debug/hrwhash

test-py:
	$(MAKE) -C bindings-python test

test-node:
	$(MAKE) -C bindings-node test

test-c:
	$(MAKE) -C bindings-c test

test-go:
	$(MAKE) -C go test-go

check-generated:
	python3 conformance/api/table.py generate --check
	$(MAKE) --no-print-directory -C go check-asm
	$(CARGO) run --quiet -p hrwhash-errors --bin generate-errors -- --check .
	$(CARGO) run --quiet -p hrwhash-conformance --bin generate -- --check
	@# Released formats (hrwhash 1.0): their vectors files never change, generator or not. A change
	@# to one is a new version beside it (a new tag, a new file), never an edit of these bytes.
	cd conformance && sha256sum --check --strict --quiet RELEASED.sha256 || { \
	  echo "a released vectors file changed: conformance/RELEASED.sha256 lists them; a change is a new version beside the old one" >&2; exit 1; }
	@# The crates compiled into each shipped binary, with their licences (packaging/README.md).
	python3 packaging/third_party_licenses.py hrwhash-cli cli/THIRD-PARTY-LICENSES.txt --check
	python3 packaging/third_party_licenses.py hrwhash-python bindings-python/THIRD-PARTY-LICENSES.txt --check
	python3 packaging/third_party_licenses.py hrwhash-node bindings-node/THIRD-PARTY-LICENSES.txt --check
	python3 packaging/third_party_licenses.py hrwhash-c bindings-c/THIRD-PARTY-LICENSES.txt --check
	@# fuzz/ is a workspace of its own, so a dependency added to the core or the C ABI leaves its
	@# lock file behind, and the first cargo-fuzz build rewrites it in the working tree.
	$(CARGO) metadata --quiet --locked --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null || { \
	  echo "fuzz/Cargo.lock is out of date: run 'cargo metadata --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null' and commit it" >&2; exit 1; }

# Every conformance vectors file, rewritten by its generator (the registry in conformance/src/lib.rs);
# `cargo run -p hrwhash-conformance --bin generate -- NAME...` rewrites only those named.
vectors:
	$(CARGO) run --quiet -p hrwhash-conformance --bin generate

# Every language's error names, codes and messages, from conformance/errors.json.
errors:
	$(CARGO) run --quiet -p hrwhash-errors --bin generate-errors -- .

# Each profile's vectors (conformance/profiles/) re-recorded from its incumbent and diffed against
# the checked-in files; installs the incumbents it needs (conformance/profiles/record/Makefile).
record-profiles:
	$(MAKE) -C conformance/profiles/record check

# What users install: the manylinux2014 abi3 wheel and the sdist, the npm package and its prebuilt
# platform package, the C release tarball; all in dist/.
ZIG_VENV := $(CURDIR)/target/tools/zig
$(ZIG_VENV)/.installed: packaging/requirements.txt
	python3 -m venv $(ZIG_VENV)
	$(ZIG_VENV)/bin/pip install --quiet -r packaging/requirements.txt
	touch $@

# The zig-linked Node addon, C library and CLI wheel alone, for make test to build ahead of test-dist.
dist-build: $(ZIG_VENV)/.installed
	$(MAKE) -C bindings-node zig-addon ZIG_VENV=$(ZIG_VENV)
	$(MAKE) -C bindings-c zig-lib ZIG_VENV=$(ZIG_VENV)
	$(MAKE) --no-print-directory cli-wheel

# The CLI: one release build, linked by zig against glibc 2.17, shipped twice: as the wheel
# hrwhash-cli (maturin's `bindings = "bin"`, cli/pyproject.toml) and, the same binary taken out of
# that wheel, as the npm packages hrwhash-cli and its platform package (packaging/npm-cli/).
# Its own target directory, since cargo rebuilds every crate when the linker changes.
CLI_WHEELS := target/cli-wheels
cli-wheel: $(ZIG_VENV)/.installed
	rm -rf $(CLI_WHEELS)
	PATH="$(ZIG_VENV)/bin:$$PATH" CARGO_TARGET_DIR=$(CURDIR)/target/cli-wheel \
	  $(ZIG_VENV)/bin/maturin build --release --zig --compatibility manylinux2014 -m cli/Cargo.toml --out $(CLI_WHEELS)
	$(ZIG_VENV)/bin/auditwheel show $(CLI_WHEELS)/hrwhash_cli-*.whl | tr -s ' \n' ' ' | grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' || \
	  { $(ZIG_VENV)/bin/auditwheel show $(CLI_WHEELS)/hrwhash_cli-*.whl; echo "the CLI wheel is not manylinux_2_17" >&2; exit 1; }

cli-dist: cli-wheel
	mkdir -p dist && cp $(CLI_WHEELS)/hrwhash_cli-*.whl dist/
	rm -rf target/cli-npm && $(ZIG_VENV)/bin/python -m zipfile -e $(CLI_WHEELS)/hrwhash_cli-*.whl target/cli-npm/wheel
	node packaging/npm-cli/pack.js target/cli-npm/wheel/hrwhash_cli-*.data/scripts/hrwhash dist

dist: $(ZIG_VENV)/.installed
	rm -rf dist
	$(MAKE) -C bindings-python dist
	$(MAKE) -C bindings-node dist ZIG_VENV=$(ZIG_VENV)
	$(MAKE) -C bindings-c dist ZIG_VENV=$(ZIG_VENV)
	$(MAKE) --no-print-directory cli-dist

# Each artifact installed into a fresh environment with no cargo or rustc on PATH, running the
# README examples.
test-dist: dist
	bash packaging/test-install.sh dist

# The npm WebAssembly fallback (hrwhash-wasm32-wasi): built, packed, installed without a native
# addon and run through the whole Node suite (packaging/test-wasm.sh). Not part of `make test`: it
# needs the wasm32-wasip1-threads standard library (rustup) and a build of its own; the release
# pipeline runs it before it publishes the package.
test-wasm:
	$(MAKE) -C bindings-node wasm
	bash packaging/test-wasm.sh

# The release pipeline cannot run here; actionlint (from the Go module proxy, pinned) checks its
# syntax, expressions, job graph and action inputs.
ACTIONLINT_VERSION := v1.7.12
lint-workflows:
	go run github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION) .github/workflows/*.yml

bench:
	$(CARGO) bench -p hrwhash-bench --bench lookup
	python3 bench/summarize.py target/criterion

# hrwhash beside the peer libraries of every language, in one run of the shared harness.
peer-harness:
	$(MAKE) -C bindings-python wheel
	$(MAKE) -C bindings-node build
	$(MAKE) -C bindings-c stage
	bash bench/peer-harness/run.sh

fmt:
	$(CARGO) fmt --all

# ---- fuzzing (fuzz/README.md) ---------------------------------------------------------------
# cargo-fuzz needs nightly-only compiler flags; RUSTC_BOOTSTRAP=1 lets the stable compiler take
# them, for the fuzz crate only (its own workspace).
CARGO_FUZZ_VERSION := 0.13.1
CARGO_FUZZ := $(CURDIR)/target/tools/bin/cargo-fuzz
FUZZ_TARGETS := membership lookups c_abi
FUZZ_SECONDS ?= 600
TEST_FUZZ_SECONDS ?= 6
FUZZ_TARGET_DIR ?= $(CURDIR)/target/fuzz
FUZZ_OPTS := --fuzz-dir fuzz --target-dir $(FUZZ_TARGET_DIR) --release --debug-assertions
FUZZ := RUSTC_BOOTSTRAP=1 $(CARGO_FUZZ)

# A debug build: it only drives cargo, and builds in a third of the CPU time of a release one.
$(CARGO_FUZZ):
	$(CARGO) install --debug --locked cargo-fuzz --version $(CARGO_FUZZ_VERSION) --root $(CURDIR)/target/tools

# --locked first: cargo-fuzz has no such flag, and without it a stale fuzz/Cargo.lock would be
# rewritten in the working tree instead of failing.
fuzz-build: $(CARGO_FUZZ)
	$(CARGO) metadata --quiet --locked --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null
	$(FUZZ) build $(FUZZ_OPTS)

# Each target starts from the checked-in seeds and grows a corpus under target/ (not committed).
# `-max_len` keeps inputs near what the targets read; a finding stops the run and fails make.
fuzz-all = for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t && \
	  $(FUZZ) run $(FUZZ_OPTS) $$t target/fuzz-corpus/$$t fuzz/corpus/$$t -- \
	    -max_total_time=$(1) -max_len=4096 -print_final_stats=1 -close_fd_mask=1 || exit 1; \
	done

# Every fuzz target of every language: the core and C ABI (cargo-fuzz), Go (go test -fuzz) and
# the Python binding (atheris), each for FUZZ_SECONDS.
fuzz: fuzz-build
	$(call fuzz-all,$(FUZZ_SECONDS))
	$(MAKE) -C go fuzz-go FUZZ_SECONDS=$(FUZZ_SECONDS)
	$(MAKE) -C bindings-python fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

test-fuzz: test-fuzz-native test-fuzz-py

test-fuzz-native: fuzz-build
	$(call fuzz-all,$(TEST_FUZZ_SECONDS))
	$(MAKE) -C go test-fuzz-go

test-fuzz-py:
	$(MAKE) -C bindings-python test-fuzz
