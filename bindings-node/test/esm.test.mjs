// The package works from ES modules, with named and default imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import hrwhash, { Placement, ALGORITHM, DEFAULT_SEED, keyDigest } from 'hrwhash';

test('named and default imports are the CommonJS exports', () => {
  const cjs = createRequire(import.meta.url)('hrwhash');
  assert.equal(Placement, cjs.Placement);
  assert.equal(hrwhash.Placement, cjs.Placement);
  assert.equal(ALGORITHM, 'hrw-v1');
  assert.equal(DEFAULT_SEED.length, 32);
  assert.equal(typeof keyDigest('k'), 'bigint');
  const p = new Placement(['a', 'b']);
  assert.ok(['a', 'b'].includes(p.owner('key')));
});

test('every CommonJS export is a named ES module export', async () => {
  const cjs = createRequire(import.meta.url)('hrwhash');
  const esm = await import('hrwhash');
  const named = Object.keys(esm).filter((k) => k !== 'default').sort();
  assert.deepEqual(named, Object.keys(cjs).sort());
  for (const k of named) assert.equal(esm[k], cjs[k], k);
});
