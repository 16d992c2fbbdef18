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

const suffix = platformSuffix();
if (
  !process.env.NAPI_RS_NATIVE_LIBRARY_PATH &&
  !existsSync(join(__dirname, `hrwhash.${suffix}.node`)) &&
  !resolvable(`hrwhash-${suffix}`)
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

// As a plain re-export, so that ES modules' named imports still find every name.
module.exports = require('./index.js');
