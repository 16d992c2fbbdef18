// The package entry point: loads this platform's addon. `napi build --no-js` writes no loader;
// napi-rs's generated one would try each of its ~35 platforms in a block of its own, while the
// addon's file and package names follow from one suffix (scripts/platform.js): the addon built
// here or from source (hrwhash.<suffix>.node beside this file) first, then the prebuilt optional
// package (hrwhash-<suffix>) that the release publishes for the platforms scripts/pack.js knows,
// then napi-rs's WebAssembly build, as napi-rs's loader falls back to it.
'use strict';
const { platformSuffix } = require('./scripts/platform.js');

const VERSION = require('./package.json').version;

function requirePackage(name) {
  const binding = require(name);
  const found = require(`${name}/package.json`).version;
  const enforce = process.env.NAPI_RS_ENFORCE_VERSION_CHECK;
  if (found !== VERSION && enforce && enforce !== '0') {
    throw new Error(`hrwhash: ${name} is version ${found}, not ${VERSION}: reinstall hrwhash`);
  }
  return binding;
}

// An error with a `cause` chain of each failed attempt, the last one first.
function failed(message, errors) {
  const error = new Error(message);
  error.cause = errors.reduce((previous, current) => {
    const e = new Error(current instanceof Error ? current.message : String(current));
    e.cause = previous;
    return e;
  }, undefined);
  return error;
}

// napi-rs's WebAssembly build (wasm32-wasip1-threads), a fallback for platforms with no native
// addon: hrwhash.wasi.cjs beside this file after `make wasm` in the repository (only with its
// .wasm, which a native `napi build` removes, as napi-rs's loader checks), then the package
// hrwhash-wasm32-wasi. Its loader stamps napi-rs's `__napiBindingTarget` on the binding; it is
// taken off again, so that the package exports what index.d.ts declares whichever build loaded.
function wasiBinding(load) {
  const binding = load();
  if (Object.prototype.hasOwnProperty.call(binding, '__napiBindingTarget')) delete binding.__napiBindingTarget;
  return binding;
}
const WASI = [
  () =>
    wasiBinding(() => {
      try {
        require.resolve('./hrwhash.wasm32-wasi.wasm');
      } catch {
        require.resolve('./hrwhash.wasm32-wasi.debug.wasm');
      }
      return require('./hrwhash.wasi.cjs');
    }),
  () => wasiBinding(() => requirePackage('hrwhash-wasm32-wasi')),
];

// NAPI_RS_FORCE_WASI as napi-rs's loader reads it: 'true' tries the WebAssembly build first and
// the native addon after it, 'error' the WebAssembly build alone; anything else, the native addon
// first. NAPI_RS_WASI_FLAVOR names the one flavor to load, and implies 'error'.
function load() {
  const flavor = process.env.NAPI_RS_WASI_FLAVOR;
  if (flavor && flavor !== 'wasm32-wasi') {
    throw new Error(`hrwhash: unsupported WASI flavor "${flavor}" (NAPI_RS_WASI_FLAVOR); available flavors: wasm32-wasi`);
  }
  const force = flavor ? 'error' : process.env.NAPI_RS_FORCE_WASI;
  const suffix = platformSuffix();
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  const native = override
    ? [() => require(override)]
    : [() => require(`./hrwhash.${suffix}.node`), () => requirePackage(`hrwhash-${suffix}`)];
  const attempts = force === 'error' ? WASI : force === 'true' ? [...WASI, ...native] : [...native, ...WASI];
  const errors = [];
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (err) {
      errors.push(err);
    }
  }
  if (force === 'error') {
    throw failed(`hrwhash: the WebAssembly build (hrwhash-wasm32-wasi) did not load, and NAPI_RS_FORCE_WASI=error forbids the native addon`, errors);
  }
  if (!override && errors.every((e) => e.code === 'MODULE_NOT_FOUND')) {
    const error = failed(
      `hrwhash: no addon for ${suffix} is installed: the optional package hrwhash-${suffix} is missing ` +
        '(installed with --omit=optional, or no prebuilt package exists for this platform) and none was ' +
        "built from source (install scripts were skipped, or Rust's cargo was not on PATH). Install " +
        `hrwhash-${suffix}, or reinstall hrwhash with cargo on PATH and scripts enabled.`,
      errors,
    );
    error.code = 'HRW_ADDON_MISSING';
    throw error;
  }
  throw failed(`hrwhash: the addon for ${suffix} did not load`, errors);
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

// `fallbackName`: the name a method keeps when the addon gave its function none (the WebAssembly
// build's functions, made by emnapi, are all nameless).
function guarded(fn, className, name, fallbackName = '') {
  const g = function (...args) {
    try {
      return Reflect.apply(fn, this, args);
    } catch (err) {
      throw foreignReceiver(err, this, className, name);
    }
  };
  Object.defineProperty(g, 'name', { value: fn.name || fallbackName });
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
      if (typeof d.value === 'function') d.value = guarded(d.value, className, name, name);
      if (d.get) d.get = guarded(d.get, className, name);
      if (d.set) d.set = guarded(d.set, className, name);
      Object.defineProperty(proto, name, d);
    }
  }
}

const binding = load();
guardReceivers(binding);

// Each name once more as an assignment: Node finds an ES module's named imports of a CommonJS
// module by reading these statically (test/esm.test.mjs checks that none is missing).
module.exports = binding;
module.exports.BoundedLoad = binding.BoundedLoad;
module.exports.Domains = binding.Domains;
module.exports.LiveView = binding.LiveView;
module.exports.Placement = binding.Placement;
module.exports.Plan = binding.Plan;
module.exports.ProfilePlacement = binding.ProfilePlacement;
module.exports.RampPlan = binding.RampPlan;
module.exports.ReplicaBalance = binding.ReplicaBalance;
module.exports.SlotTable = binding.SlotTable;
module.exports.Transition = binding.Transition;
module.exports.View = binding.View;
module.exports.ALGORITHM = binding.ALGORITHM;
module.exports.BOUNDED_LOAD_POLICY = binding.BOUNDED_LOAD_POLICY;
module.exports.DEFAULT_SEED = binding.DEFAULT_SEED;
module.exports.DOMAINS_POLICY = binding.DOMAINS_POLICY;
module.exports.draw = binding.draw;
module.exports.keyDigest = binding.keyDigest;
module.exports.nodeDigest = binding.nodeDigest;
module.exports.ramp = binding.ramp;
module.exports.RAMP_GRID = binding.RAMP_GRID;
module.exports.RANKED_SLOT_TABLE_POLICY = binding.RANKED_SLOT_TABLE_POLICY;
module.exports.REPLICA_BALANCE_POLICY = binding.REPLICA_BALANCE_POLICY;
module.exports.score = binding.score;
module.exports.SLOT_HISTORY_FORMAT = binding.SLOT_HISTORY_FORMAT;
module.exports.SLOT_TABLE_POLICY = binding.SLOT_TABLE_POLICY;
module.exports.weightToFixed = binding.weightToFixed;
