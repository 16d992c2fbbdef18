// The package entry point: loads this platform's addon. `napi build --no-js` writes no loader;
// napi-rs's generated one would try each of its ~35 platforms in a block of its own, while the
// addon's file and package names follow from one suffix (scripts/platform.js): the addon built
// here or from source (hrwhash.<suffix>.node beside this file) first, then the prebuilt optional
// package (hrwhash-<suffix>) that the release publishes for the platforms scripts/pack.js knows.
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

function load() {
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  if (override) return require(override);
  const suffix = platformSuffix();
  const errors = [];
  for (const attempt of [() => require(`./hrwhash.${suffix}.node`), () => requirePackage(`hrwhash-${suffix}`)]) {
    try {
      return attempt();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.every((e) => e.code === 'MODULE_NOT_FOUND')) {
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

const binding = load();

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
