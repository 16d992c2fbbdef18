// The package entry point. index.js is napi-rs's generated loader; when no addon exists for this
// platform, its error blames an npm bug. Say what is missing instead, then hand over to it.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { platformSuffix } = require('./scripts/platform.js');


function resolvable(id) {
  try {
    require.resolve(id);
    return true;
  } catch {
    return false;
  }
}

// napi-rs's WebAssembly build, which index.js falls back to when no native addon loads: the
// package hrwhash-wasm32-wasi, or hrwhash.wasi.cjs beside this file after a wasm32-wasip1-threads
// build in the repository.
const wasiFallback = () => existsSync(join(__dirname, 'hrwhash.wasi.cjs')) || resolvable('hrwhash-wasm32-wasi');

const suffix = platformSuffix();
if (
  !process.env.NAPI_RS_NATIVE_LIBRARY_PATH &&
  !existsSync(join(__dirname, `hrwhash.${suffix}.node`)) &&
  !resolvable(`hrwhash-${suffix}`) &&
  !wasiFallback()
) {
  const error = new Error(
    `hrwhash: no addon for ${suffix} is installed: the optional package hrwhash-${suffix} is missing ` +
      '(installed with --omit=optional, or no prebuilt package exists for this platform) and none was ' +
      "built from source (install scripts were skipped, or Rust's cargo was not on PATH). Install " +
      `hrwhash-${suffix}, or reinstall hrwhash with cargo on PATH and scripts enabled.`,
  );
  error.code = 'HRW_ADDON_MISSING';
  throw error;
}

// napi-rs gives methods and getters a V8 signature, so on a foreign receiver
// (`View.prototype.toJson.call({})`) V8 throws "Illegal invocation" without a `code`, and a getter
// throws napi-rs's "Failed to unwrap" with its status `InvalidArg` as the code; none is an
// HrwErrorCode. Placement's methods are this package's own callbacks (src/fast.rs), which check
// the receiver themselves; every other class's are wrapped to throw the package's TypeError
// instead. The wrapper only catches: a call that does not throw pays one more JS frame.
function foreignReceiver(err, receiver, className, name) {
  const illegal = err instanceof TypeError && err.code === undefined && err.message === 'Illegal invocation';
  // napi-rs's words for a receiver of no class, and of another of its classes.
  const unwrap =
    err instanceof Error &&
    err.code === 'InvalidArg' &&
    (err.message.startsWith(`Failed to unwrap exclusive reference of \`${className}\``) ||
      err.message === `Value is not an instance of class \`${className}\``);
  if (!illegal && !unwrap) return err;
  const what = receiver === null ? 'null' : typeof receiver === 'object' ? `an object that is not a ${className}` : typeof receiver;
  const e = new TypeError(`${className}.prototype.${name} was called on ${what}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  return e;
}

function guarded(fn, className, name) {
  const g = function (...args) {
    try {
      return Reflect.apply(fn, this, args);
    } catch (err) {
      throw foreignReceiver(err, this, className, name);
    }
  };
  Object.defineProperty(g, 'name', { value: fn.name });
  Object.defineProperty(g, 'length', { value: fn.length });
  return g;
}

function guardReceivers(exports) {
  for (const [className, cls] of Object.entries(exports)) {
    if (typeof cls !== 'function' || !cls.prototype || className === 'Placement') continue;
    const proto = cls.prototype;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (name === 'constructor' || !d.configurable) continue;
      if (typeof d.value === 'function') d.value = guarded(d.value, className, name);
      if (d.get) d.get = guarded(d.get, className, name);
      if (d.set) d.set = guarded(d.set, className, name);
      Object.defineProperty(proto, name, d);
    }
  }
}

// As a plain re-export, so that ES modules' named imports still find every name.
module.exports = require('./index.js');
guardReceivers(module.exports);
