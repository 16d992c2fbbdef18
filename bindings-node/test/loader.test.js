// The loader (main.js) on its own, in a directory with no addon: which build it takes for
// NAPI_RS_FORCE_WASI and NAPI_RS_WASI_FLAVOR, as napi-rs's loader reads them, and what it says
// when none loads. A stand-in native addon (NAPI_RS_NATIVE_LIBRARY_PATH accepts a script) and a
// stand-in WebAssembly loader answer which one was taken.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const pkg = path.dirname(require.resolve('hrwhash/package.json'));

function loaderDir({ wasi, wasm = wasi }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrwhash-loader-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  for (const f of ['main.js', 'package.json', 'scripts/platform.js']) fs.copyFileSync(path.join(pkg, f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'native.js'), "module.exports = { from: 'native' };\n");
  // As napi-rs's loader: it stamps its flavor on the binding.
  if (wasi) fs.writeFileSync(path.join(dir, 'hrwhash.wasi.cjs'), "module.exports = { from: 'wasi', __napiBindingTarget: 'wasm32-wasi' };\n");
  if (wasm) fs.writeFileSync(path.join(dir, 'hrwhash.wasm32-wasi.wasm'), '');
  return dir;
}

// What `require(main.js)` gives in a fresh process: the exports' keys and `from`, or the error.
function load(dir, env) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NAPI_RS_')));
  const script = `try { const m = require(${JSON.stringify(path.join(dir, 'main.js'))});
    console.log(JSON.stringify({ from: m.from, keys: Object.keys(m).filter((k) => m[k] !== undefined) })) }
  catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, cause: e.cause && e.cause.message })) }`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...clean, ...env } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('NAPI_RS_FORCE_WASI picks between the native addon and the WebAssembly build as napi-rs does', (t) => {
  const dir = loaderDir({ wasi: true });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const native = path.join(dir, 'native.js');
  const env = (force) => ({ NAPI_RS_NATIVE_LIBRARY_PATH: native, ...(force === undefined ? {} : { NAPI_RS_FORCE_WASI: force }) });
  assert.equal(load(dir, env()).from, 'native');
  assert.equal(load(dir, env('false')).from, 'native');
  assert.equal(load(dir, env('1')).from, 'native');
  assert.equal(load(dir, env('true')).from, 'wasi');
  assert.equal(load(dir, env('error')).from, 'wasi');
  assert.equal(load(dir, { NAPI_RS_NATIVE_LIBRARY_PATH: native, NAPI_RS_WASI_FLAVOR: 'wasm32-wasi' }).from, 'wasi');
  // napi-rs's marker is not one of the package's exports, whichever build loaded.
  assert.deepEqual(load(dir, env('error')).keys, ['from']);
  const flavor = load(dir, { NAPI_RS_WASI_FLAVOR: 'wasm32-wasip1' });
  assert.match(flavor.message, /unsupported WASI flavor "wasm32-wasip1"/);
});

test('with no WebAssembly build, NAPI_RS_FORCE_WASI=true falls back to the native addon and =error throws', (t) => {
  // A loader left beside the package without its .wasm counts as absent, as for napi-rs.
  for (const dir of [loaderDir({ wasi: false }), loaderDir({ wasi: true, wasm: false })]) {
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const native = path.join(dir, 'native.js');
    assert.equal(load(dir, { NAPI_RS_NATIVE_LIBRARY_PATH: native, NAPI_RS_FORCE_WASI: 'true' }).from, 'native');
    const forced = load(dir, { NAPI_RS_NATIVE_LIBRARY_PATH: native, NAPI_RS_FORCE_WASI: 'error' });
    assert.match(forced.message, /WebAssembly build \(hrwhash-wasm32-wasi\) did not load.*NAPI_RS_FORCE_WASI=error/);
    assert.match(forced.cause, /hrwhash-wasm32-wasi/);
    // Nothing at all: the package's own error.
    for (const force of [undefined, 'true']) {
      const missing = load(dir, force ? { NAPI_RS_FORCE_WASI: force } : {});
      assert.equal(missing.code, 'HRW_ADDON_MISSING', JSON.stringify(missing));
    }
  }
});
