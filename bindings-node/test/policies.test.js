// Every case of ../conformance/policies/bounded-load.json and bounded-load-boundaries.json through
// the public API, and every bad input of the policy (conformance/POLICIES.md).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const hrwhash = require('hrwhash');
const { hasCode, typeError } = require('./helpers');
const { Placement, BoundedLoad } = hrwhash;

const read = (file) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'policies', file), 'utf8'));
// The bounded-load-v1 files: the main one and the cases on the caps; the same tests run both.
const BOUNDED_FILES = ['bounded-load.json', 'bounded-load-boundaries.json'].map((file) => [file, read(file)]);

const number = (v) => ({ NaN, Infinity, '-Infinity': -Infinity })[v] ?? Number(v);

/** The membership of a case, ids as bytes. */
function membership(c) {
  let ids, weights;
  if (c.nodes) {
    ids = c.nodes.map((n) => Buffer.from(n.id, 'hex'));
    weights = c.nodes.map((n) => number(n.weight ?? 1));
  } else {
    const prefix = Buffer.from(c.node_prefix, 'hex');
    const cycle = (c.weight_cycle ?? [1]).map(number);
    ids = Array.from({ length: c.node_count }, (_, i) => Buffer.concat([prefix, Buffer.from(String(i))]));
    weights = ids.map((_, i) => cycle[i % cycle.length]);
  }
  return { p: new Placement(ids, { weights }), ids };
}

const factor = (c) => [c.factor.num, c.factor.den];
const codes = {
  LengthMismatch: 'HRW_LENGTH_MISMATCH',
  LoadOverflow: 'HRW_LOAD_OVERFLOW',
  InvalidBalanceFactor: 'HRW_INVALID_BALANCE_FACTOR',
};

test('policy names', () => {
  for (const [, BOUNDED] of BOUNDED_FILES) assert.equal(BOUNDED.policy, hrwhash.BOUNDED_LOAD_POLICY);
  assert.equal(hrwhash.BOUNDED_LOAD_POLICY, 'bounded-load-v1');
});

for (const [file, BOUNDED] of BOUNDED_FILES) {
  test(`${file}: bounded-load online cases, loads as bigints and as numbers`, () => {
    assert.ok(BOUNDED.online.length > 0);
    for (const c of BOUNDED.online) {
      const { p, ids } = membership(c);
      const b = new BoundedLoad(p, factor(c));
      const key = Buffer.from(c.key, 'hex');
      const want = c.expected.owner;
      assert.equal(b.ownerIndex(key, c.loads.map(BigInt)), want, c.name);
      assert.ok(b.owner(key, c.loads.map(BigInt)).equals(ids[want]), c.name);
      if (c.loads.every((l) => BigInt(l) <= BigInt(Number.MAX_SAFE_INTEGER)))
        assert.equal(b.ownerIndex(key, c.loads.map(Number)), want, c.name);
      assert.equal(p.rank(key, p.length)[c.expected.position].equals(ids[want]), true, c.name);
    }
  });

  test(`${file}: bounded-load batch cases`, () => {
    assert.ok(BOUNDED.batch.length > 0);
    for (const c of BOUNDED.batch) {
      const { p, ids } = membership(c);
      const b = new BoundedLoad(p, factor(c));
      const keys = Array.from({ length: c.key_count }, (_, i) => c.key_prefix + i);
      const owners = b.assignIndices(keys);
      assert.deepEqual(owners, c.expected.owners, c.name);
      const counts = ids.map((_, n) => owners.filter((o) => o === n).length);
      assert.deepEqual(counts, c.expected.counts, c.name);
      assert.deepEqual(b.assign(keys), owners.map((i) => ids[i]), c.name);
    }
  });

  test(`${file}: bounded-load float factors`, () => {
    const p = new Placement(['a', 'b']);
    assert.ok(BOUNDED.factor_cases.length > 0);
    for (const c of BOUNDED.factor_cases) {
      const f = number(c.factor);
      if (c.error) assert.throws(() => new BoundedLoad(p, f), hasCode(codes[c.error]), String(c.factor));
      else assert.deepEqual(new BoundedLoad(p, f).factor, [c.num, c.den], String(c.factor));
    }
  });

  test(`${file}: bounded-load error cases`, () => {
    assert.ok(BOUNDED.error_cases.length > 0);
    for (const c of BOUNDED.error_cases) {
      const { p } = membership(c);
      const extra = {};
      if (c.error === 'LengthMismatch') Object.assign(extra, { expected: c.node_count, actual: c.loads.length });
      if (c.error === 'InvalidBalanceFactor') extra.value = c.factor.num / c.factor.den;
      assert.throws(() => {
        const b = new BoundedLoad(p, factor(c));
        b.owner(Buffer.from(c.key, 'hex'), c.loads.map(BigInt));
      }, hasCode(codes[c.error], extra), c.name);
    }
  });
}

test('bounded-load misuse is a TypeError or a RangeError, never a crash', () => {
  const p = new Placement(['a', 'b', 'c']);
  const b = new BoundedLoad(p, 1.25);
  assert.deepEqual(b.factor, [1250000, 1000000]);
  assert.deepEqual(new BoundedLoad(p, [5, 4]).factor, [5, 4]);
  for (const bad of ['1.25', null, undefined, true, [1], [1, 2, 3], [true, 1], ['5', '4'], {}])
    typeError(() => new BoundedLoad(p, bad));
  // Numbers that no [num, den] term can be: the factor is not usable (POLICIES.md), as in Python.
  for (const [bad, value] of [[[1.5, 1], 1.5], [[-1, 1], -1], [[2 ** 32, 1], 2 ** 32], [[5, 2 ** 32], 5 / 2 ** 32]])
    assert.throws(() => new BoundedLoad(p, bad), hasCode('HRW_INVALID_BALANCE_FACTOR', { value }));
  for (const bad of ['not a placement', {}, null, [1, 2]]) typeError(() => new BoundedLoad(bad, 1.25));
  for (const bad of ['012', Buffer.alloc(3), 3, null, { length: 3 }, [0, 0, '0'], [0, null, 0], [0, 0, {}]])
    typeError(() => b.owner('k', bad));
  for (const bad of [[0, 0, -1], [0, 0, 1.5], [0, 0, NaN], [0, 0, 2 ** 53], [0, 0, -1n], [0, 0, 2n ** 64n]])
    assert.throws(() => b.owner('k', bad), (err) => err instanceof RangeError && err.code === 'HRW_INVALID_COUNT' && err.index === 2);
  for (const bad of [null, 5, {}]) typeError(() => b.owner(bad, [0, 0, 0]));
  assert.throws(() => b.owner('k', [0, 0]), hasCode('HRW_LENGTH_MISMATCH', { expected: 3, actual: 2 }));
  assert.throws(() => b.owner('k', [2n ** 64n - 1n, 1, 0]), hasCode('HRW_LOAD_OVERFLOW'));
  assert.throws(() => new BoundedLoad(p, [3, 4]), hasCode('HRW_INVALID_BALANCE_FACTOR', { value: 0.75 }));
  assert.throws(() => new BoundedLoad(p, 1e400), hasCode('HRW_INVALID_BALANCE_FACTOR'));
  typeError(() => b.assign('one key'));
  typeError(() => b.assign(['a', null]));
  assert.throws(() => b.assign(['a', '\ud800']), hasCode('HRW_INVALID_TEXT', { index: 1 }));
  assert.throws(() => b.owner('\ud800', [0, 0, 0]), hasCode('HRW_INVALID_TEXT'));
  // String ids come back as strings.
  assert.equal(typeof b.owner('k', [0, 0, 0]), 'string');
  assert.equal(b.owner('k', [0, 0, 0]), p.owner('k'));
});

test('bounded-load caps hold over a stream', () => {
  const p = new Placement(Array.from({ length: 8 }, (_, i) => `gpu-${i}`));
  const b = new BoundedLoad(p, [11, 10]);
  const loads = new Array(8).fill(0);
  for (let i = 0; i < 4000; i++) {
    const total = loads.reduce((a, x) => a + x, 0);
    const cap = Math.ceil(Math.ceil(((total + 1) * 11) / 10) / 8);
    const n = b.ownerIndex(`req-${i}`, loads);
    assert.ok(loads[n] < cap, `req-${i}`);
    loads[n] += 1;
  }
});
