// What several test files assert the same way about errors (no tests of its own: `node --test`
// runs it as an empty file).
'use strict';
const assert = require('node:assert/strict');

// An error of hrwhash's own (not a TypeError) with this code, a message that says something,
// and the given details.
const hasCode = (code, extra = {}) => (err) => {
  assert.ok(err instanceof Error && !(err instanceof TypeError), String(err));
  assert.equal(err.code, code, err.message);
  assert.ok(err.message.length > 10, err.message);
  for (const [k, v] of Object.entries(extra)) assert.deepEqual(err[k], v, k);
  return true;
};

// `fn` throws Node's own TypeError for an argument of the wrong type.
const typeError = (fn) => assert.throws(fn, (err) => err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE');

/** Whether `hrwhash` answers from its WebAssembly build (napi-rs's loader `hrwhash.wasi.cjs`). */
const isWasm = () => {
  require('hrwhash');
  return Object.keys(require.cache).some((f) => f.endsWith('.wasi.cjs'));
};

module.exports = { hasCode, typeError, isWasm };
