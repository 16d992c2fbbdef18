# One target per job; CI calls these and nothing else.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: demo test dist test-dist test-core test-conformance test-cli test-py test-node test-c test-go check-generated bench peer-harness fmt

demo:
	$(CARGO) run --quiet --release -p hrwhash-cli -- simulate

test: check-generated test-core test-conformance test-cli test-py test-node test-c test-go test-dist

test-core:
	$(CARGO) fmt --all -- --check
	$(CARGO) test -p hrwhash
	$(CARGO) test -p hrwhash --no-default-features
	$(CARGO) build -p hrwhash --no-default-features
	$(CARGO) test --release -p hrwhash --test properties -- --include-ignored
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hrwhash --no-deps

test-conformance:
	$(CARGO) test -p hrwhash-conformance
	python3 -m unittest discover -s conformance/reference -p "test_*.py"
	python3 conformance/reference/hrw_reference.py conformance/vectors.json
	python3 conformance/reference/view_reference.py conformance/views.json

test-cli:
	$(CARGO) test -p hrwhash-cli

test-py:
	$(MAKE) -C bindings-python test

test-node:
	$(MAKE) -C bindings-node test

test-c:
	$(MAKE) -C bindings-c test

test-go:
	$(MAKE) -C bindings-c test-go

check-generated:
	$(CARGO) run --quiet -p hrwhash-conformance --bin generate-vectors -- --check conformance/vectors.json
	$(CARGO) run --quiet -p hrwhash-conformance --bin generate-views -- --check conformance/views.json

# What users install: the manylinux2014 abi3 wheel and the sdist, the npm package and its prebuilt
# platform package, the C release tarball; all in dist/.
ZIG_VENV := $(CURDIR)/target/tools/zig
$(ZIG_VENV)/.installed: packaging/requirements.txt
	python3 -m venv $(ZIG_VENV)
	$(ZIG_VENV)/bin/pip install --quiet -r packaging/requirements.txt
	touch $@

dist: $(ZIG_VENV)/.installed
	rm -rf dist
	$(MAKE) -C bindings-python dist
	$(MAKE) -C bindings-node dist ZIG_VENV=$(ZIG_VENV)
	$(MAKE) -C bindings-c dist ZIG_VENV=$(ZIG_VENV)

# Each artifact installed into a fresh environment with no cargo or rustc on PATH, running the
# README examples.
test-dist: dist
	bash packaging/test-install.sh dist

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
