#!/usr/bin/env bash
# Installs every artifact of `make dist` the way a user does, into fresh environments whose PATH
# has no cargo and no rustc, and runs the README examples against the installed copies.
# Usage: packaging/test-install.sh DIST_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$(cd "${1:-dist}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The interpreters by absolute path, so the bare PATH below holds no toolchain directory.
python=$(python3 -c 'import sys; print(sys.executable)')
node=$(command -v node)
bare="/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"
passed=0
failed=0

check() { # check NAME COMMAND...: runs COMMAND, counts it, shows its output on failure
  local name=$1 log="$work/log"
  shift
  if "$@" >"$log" 2>&1; then
    echo "ok: $name"
    passed=$((passed + 1))
  else
    echo "FAILED: $name"
    sed 's/^/    /' "$log"
    failed=$((failed + 1))
  fi
}

no_rust() { # no_rust DIR COMMAND...: COMMAND (or a function) with PATH = DIR + the system's bin folders
  local dir=$1
  shift
  (unset CARGO RUSTC CARGO_HOME RUSTUP_HOME && PATH="$dir:$bare" && "$@")
}

only() { # only GLOB: the one file of dist/ that matches
  local matches=("$dist"/$1)
  [ "${#matches[@]}" -eq 1 ] && [ -e "${matches[0]}" ] || { echo "dist/ needs exactly one $1" >&2; exit 1; }
  echo "${matches[0]}"
}
wheel=$(only 'hrwhash-*-cp310-abi3-manylinux*_x86_64.whl')
sdist=$(only 'hrwhash-[0-9]*.tar.gz')
npm_main=$(only 'hrwhash-[0-9]*.tgz')
npm_platform=$(only 'hrwhash-linux-*.tgz')
c_tarball=$(only 'hrwhash-c-*.tar.gz')
cli_wheel=$(only 'hrwhash_cli-*-py3-none-manylinux*_x86_64.whl')
cli_npm_main=$(only 'hrwhash-cli-[0-9]*.tgz')
cli_npm_platform=$(only 'hrwhash-cli-linux-*.tgz')

# has_licences DIR [THIRD_PARTY]: DIR holds the project's licences and, for an artifact with compiled
# Rust code, the notices of its crates (THIRD_PARTY, the repository's generated file), unchanged.
has_licences() {
  local dir=$1 f
  for f in LICENSE-MIT LICENSE-APACHE; do
    cmp "$root/$f" "$dir/$f" || return 1
  done
  [ -z "${2:-}" ] || cmp "$root/$2" "$dir/THIRD-PARTY-LICENSES.txt"
}
dist_info() { # dist_info VENV DIST: the licences folder of DIST's installed .dist-info
  echo "$1"/lib/python3*/site-packages/"$2"-*.dist-info/licenses
}

check "the bare PATH has no cargo and no rustc" \
  no_rust /nonexistent sh -c '! command -v cargo && ! command -v rustc'

# ---- Python ------------------------------------------------------------------------------
"$python" -m venv "$work/py"
py_readme() {
  # Every ```python block of the README, run in order against the installed wheel.
  "$work/py/bin/python" - "$root/bindings-python/README.md" <<'EOF'
import re, sys
blocks = re.findall(r"```python\n(.*?)```", open(sys.argv[1]).read(), flags=re.S)
assert blocks, "no python blocks"
for block in blocks:
    exec(compile(block, sys.argv[1], "exec"), {"__name__": "readme"})
import hrwhash
assert hrwhash.__file__.startswith(sys.prefix), hrwhash.__file__
print(f"{len(blocks)} README blocks ran against {hrwhash.__file__}")
EOF
}
check "pip installs the wheel without Rust" \
  no_rust "$work/py/bin" pip install --quiet --no-index "$wheel"
# What the README's other examples import (pymemcache, the DataFrame libraries), at the pinned versions.
readme_deps=$(grep -E '^(pymemcache|numpy|pandas|polars|pyarrow)==' "$root/bindings-python/requirements-test.txt")
check "pymemcache and the DataFrame libraries for the README's other examples" \
  no_rust "$work/py/bin" pip install --quiet $readme_deps
check "the Python README examples run on the installed wheel" no_rust "$work/py/bin" py_readme
check "the installed wheel carries the licences and its crates' notices" \
  has_licences "$(dist_info "$work/py" hrwhash)" bindings-python/THIRD-PARTY-LICENSES.txt
sdist_without_cargo() {
  ! pip install --no-cache-dir "$sdist" >"$work/sdist.log" 2>&1 || return 1
  grep -q "building one from source needs Rust's cargo on PATH" "$work/sdist.log" || { cat "$work/sdist.log"; return 1; }
  ! grep -qi "installing into a temporary directory" "$work/sdist.log" || { cat "$work/sdist.log"; return 1; }
}
"$python" -m venv "$work/py-sdist"
check "the sdist without cargo stops with one line saying so (no toolchain download)" \
  no_rust "$work/py-sdist/bin" sdist_without_cargo

# ---- Node --------------------------------------------------------------------------------
# The README's TypeScript example, transpiled by the repository's own TypeScript, runs in a
# project that has only the installed packages.
"$node" -e '
  const ts = require(process.argv[1] + "/bindings-node/node_modules/typescript");
  const fs = require("fs");
  const md = fs.readFileSync(process.argv[1] + "/bindings-node/README.md", "utf8");
  const [block] = [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  fs.writeFileSync(process.argv[2], ts.transpileModule(block, { compilerOptions: {
    module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText);
' "$root" "$work/readme.js" || { echo "could not transpile the Node README example" >&2; exit 1; }
node_project() { mkdir -p "$1" && echo '{"name": "install-test", "version": "1.0.0", "private": true}' >"$1/package.json"; }
npm_in() { (cd "$1" && shift && npm "$@" --no-audit --no-fund --loglevel=error); }
node_readme() {
  cp "$work/readme.js" "$1/readme.js"
  out=$(cd "$1" && "$node" readme.js) || return 1
  echo "$out"
  [[ $out =~ ^hrw-v1:\ session:1234\ -\>\ 10\.0\.0\.[123]:11211$ ]]
}
node_project "$work/node"
check "npm installs both tarballs with --ignore-scripts and no Rust" \
  no_rust "$(dirname "$node")" npm_in "$work/node" install --ignore-scripts "$npm_main" "$npm_platform"
check "the Node README example runs on the installed packages" no_rust "$(dirname "$node")" node_readme "$work/node"
check "the installed npm packages carry the licences, the addon's its crates' notices" \
  eval 'has_licences "$work/node/node_modules/hrwhash" &&
    has_licences "$work/node/node_modules/hrwhash-linux-x64-gnu" bindings-node/THIRD-PARTY-LICENSES.txt'
check "ES module named imports work from the installed package" \
  no_rust "$(dirname "$node")" sh -c "cd '$work/node' && '$node' --input-type=module -e \"import { Placement } from 'hrwhash'; new Placement(['a']).owner('k');\""
node_missing_addon() {
  ! (cd "$1" && "$node" -e "require('hrwhash')") >"$work/node-missing.log" 2>&1 || return 1
  grep -q "no addon for linux-" "$work/node-missing.log" && ! grep -qi "npm has a bug" "$work/node-missing.log" \
    || { cat "$work/node-missing.log"; return 1; }
}
node_project "$work/node-main-only"
check "npm installs the main tarball alone with --ignore-scripts" \
  no_rust "$(dirname "$node")" npm_in "$work/node-main-only" install --ignore-scripts "$npm_main"
check "without an addon, require says what is missing (and blames no npm bug)" \
  no_rust "$(dirname "$node")" node_missing_addon "$work/node-main-only"
node_script_without_cargo() {
  ! npm_in "$1" install "$npm_main" >"$work/node-script.log" 2>&1 || return 1
  grep -q "building one from source needs Rust's cargo" "$work/node-script.log" || { cat "$work/node-script.log"; return 1; }
}
node_project "$work/node-no-cargo"
check "the install script without cargo and without an addon says so in one line" \
  no_rust "$(dirname "$node")" node_script_without_cargo "$work/node-no-cargo"
# With cargo on PATH, the main tarball alone builds its addon from the sources it carries.
node_project "$work/node-source"
check "the main tarball alone builds from its own sources when cargo is there" \
  npm_in "$work/node-source" install "$npm_main"
check "the Node README example runs on the addon built from the tarball's sources" \
  node_readme "$work/node-source"

# ---- C -----------------------------------------------------------------------------------
mkdir -p "$work/c" && tar -C "$work/c" -xzf "$c_tarball"
prefix=$(echo "$work"/c/hrwhash-c-*)
cflags="-std=c11 -Wall -Wextra -Wpedantic -Werror"
c_pkgconfig() {
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  # shellcheck disable=SC2046
  cc $cflags "$root/bindings-c/examples/example.c" -o "$work/c/example" \
    $(pkg-config --cflags --libs hrwhash) -Wl,-rpath,"$prefix/lib" && "$work/c/example"
}
c_pkgconfig_static() {
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  # shellcheck disable=SC2046
  cc $cflags "$root/bindings-c/examples/example.c" -o "$work/c/example-static" \
    $(pkg-config --cflags hrwhash) "$prefix/lib/libhrwhash.a" \
    $(pkg-config --static --libs-only-l hrwhash | sed 's/-lhrwhash//') && "$work/c/example-static"
}
c_cmake() {
  cmake -S "$root/bindings-c/examples" -B "$work/c/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$work/c/cmake" -j2 >/dev/null && "$work/c/cmake/example_c" && "$work/c/cmake/example_cpp"
}
check "C example via pkg-config from the unpacked release tarball (shared library)" no_rust /nonexistent c_pkgconfig
check "C example via pkg-config from the release tarball (static library)" no_rust /nonexistent c_pkgconfig_static
check "C and C++ examples via CMake find_package from the release tarball" no_rust /nonexistent c_cmake
check "the C tarball carries the licences and its crates' notices" has_licences "$prefix" bindings-c/THIRD-PARTY-LICENSES.txt

# ---- the command-line tool ---------------------------------------------------------------
# Every `$ ...` line of cli/README.md's console blocks, run from cli/ (its testdata) with only the
# installed `hrwhash` and the system's tools on PATH, printing exactly what the README shows
# (the check of `cargo test -p hrwhash-cli`, here on the installed binary).
cli_readme() { # cli_readme BIN_DIR: BIN_DIR's hrwhash must be the one on PATH
  [ "$(command -v hrwhash)" = "$1/hrwhash" ] || { echo "hrwhash on PATH is $(command -v hrwhash), not $1/hrwhash"; return 1; }
  "$python" - "$root/cli/README.md" <<'EOF'
import os, re, subprocess, sys
readme = sys.argv[1]
examples, console = [], False
for line in open(readme).read().splitlines():
    if line.startswith("```"):
        console = line == "```console"
    elif console and line.startswith("$ "):
        examples.append([line[2:], ""])
    elif console and examples:
        examples[-1][1] += line + "\n"
assert len(examples) >= 8, "cli/README.md lost its examples"
for command, shown in examples:
    run = subprocess.run(["sh", "-c", command], cwd=os.path.dirname(readme), capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout, f"{command}: exit {run.returncode}\n{run.stderr}"
    assert not shown or run.stdout == shown, f"{command}: printed\n{run.stdout}\nthe README shows\n{shown}"
print(f"{len(examples)} README commands ran")
EOF
}
cli_agrees_with_library() { # the installed command names the owners the installed Python library names
  got=$(hrwhash place --nodes cache-a,cache-b,cache-c user:1 user:2 user:3) || return 1
  want=$("$work/py/bin/python" -c '
import hrwhash
p = hrwhash.Placement(["cache-a", "cache-b", "cache-c"])
for k in ["user:1", "user:2", "user:3"]:
    print(k, p.owner(k))') || return 1
  echo "$got"
  # Compared as (key, last field): the command's layout is its own, the owners are the library's.
  [ "$(echo "$got" | awk '{print $1, $NF}')" = "$want" ] || { echo "library: $want"; return 1; }
}
cli_quiet_on_closed_pipe() {
  { hrwhash simulate --keys 200000 --nodes 50 2>"$work/cli-stderr"; echo $? >"$work/cli-status"; } | head -n 1 >/dev/null
  [ "$(cat "$work/cli-status")" = 0 ] && [ ! -s "$work/cli-stderr" ] ||
    { echo "exit $(cat "$work/cli-status"), stderr:"; cat "$work/cli-stderr"; return 1; }
}
"$python" -m venv "$work/cli-py"
check "pip installs the CLI wheel (hrwhash-cli) without Rust" \
  no_rust "$work/cli-py/bin" pip install --quiet --no-index "$cli_wheel"
check "the installed CLI wheel carries the licences and its crates' notices" \
  has_licences "$(dist_info "$work/cli-py" hrwhash_cli)" cli/THIRD-PARTY-LICENSES.txt
check "the wheel's hrwhash runs the cli/README.md examples" no_rust "$work/cli-py/bin" cli_readme "$work/cli-py/bin"
check "the wheel's hrwhash places keys as the installed Python library does" \
  no_rust "$work/cli-py/bin" cli_agrees_with_library
check "the wheel's hrwhash stops quietly with status 0 on a closed pipe" \
  no_rust "$work/cli-py/bin" cli_quiet_on_closed_pipe

# npm: the launcher package and its platform package, installed into a project (`npx hrwhash`)
# and globally (`npm install -g`, into a prefix: the bare `hrwhash`).
node_project "$work/cli-node"
check "npm installs the CLI packages (hrwhash-cli) with --ignore-scripts and no Rust" \
  no_rust "$(dirname "$node")" npm_in "$work/cli-node" install --ignore-scripts "$cli_npm_main" "$cli_npm_platform"
cli_npx() {
  (cd "$1" && npx --no-install hrwhash place --nodes cache-a,cache-b,cache-c user:1 user:2 user:3) >"$work/npx.out" || return 1
  "$work/cli-py/bin/hrwhash" place --nodes cache-a,cache-b,cache-c user:1 user:2 user:3 >"$work/wheel.out" || return 1
  cat "$work/npx.out"
  cmp "$work/npx.out" "$work/wheel.out"
}
check "npx hrwhash runs the installed binary (the wheel's answers)" \
  no_rust "$(dirname "$node")" cli_npx "$work/cli-node"
check "npm ships the wheel's binary, byte for byte" \
  cmp "$work/cli-node/node_modules/hrwhash-cli-linux-x64-gnu/hrwhash" "$work/cli-py/bin/hrwhash"
check "the installed CLI npm packages carry the licences, the binary's its crates' notices" \
  eval 'has_licences "$work/cli-node/node_modules/hrwhash-cli" &&
    has_licences "$work/cli-node/node_modules/hrwhash-cli-linux-x64-gnu" cli/THIRD-PARTY-LICENSES.txt'
check "npm install -g puts hrwhash on PATH" \
  no_rust "$(dirname "$node")" npm_in "$work" install -g --prefix "$work/cli-global" --ignore-scripts "$cli_npm_main" "$cli_npm_platform"
check "the globally installed hrwhash runs the cli/README.md examples" \
  no_rust "$work/cli-global/bin:$(dirname "$node")" cli_readme "$work/cli-global/bin"
check "the npm launcher passes the exit status through (a bad flag is status 2)" \
  no_rust "$work/cli-global/bin:$(dirname "$node")" sh -c 'hrwhash place --no-such-flag 2>/dev/null; [ $? = 2 ]'
check "through the npm launcher, hrwhash stops quietly with status 0 on a closed pipe" \
  no_rust "$work/cli-global/bin:$(dirname "$node")" cli_quiet_on_closed_pipe
cli_npm_missing_binary() {
  npm_in "$1" install --ignore-scripts "$cli_npm_main" || return 1
  ! (cd "$1" && npx --no-install hrwhash --version) >"$work/cli-missing.log" 2>&1 || return 1
  grep -q "no prebuilt binary for linux-x64-gnu" "$work/cli-missing.log" || { cat "$work/cli-missing.log"; return 1; }
}
node_project "$work/cli-node-main-only"
check "without its platform package, the CLI launcher says what is missing in one line" \
  no_rust "$(dirname "$node")" cli_npm_missing_binary "$work/cli-node-main-only"

echo "install tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
