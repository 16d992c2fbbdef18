// Every case of ../conformance/policies/replica-balance-v2.json through the public API, and every
// bad input of the policy (conformance/POLICIES.md, replica-balance).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const hrwhash = require('hrwhash');
const { hasCode, typeError } = require('./helpers');
const { Placement, ReplicaBalance } = hrwhash;

const VECTORS = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'policies', 'replica-balance-v2.json'), 'utf8'),
);

function membership(c) {
  const ids = c.nodes.map((n) => Buffer.from(n.id, 'hex'));
  return { p: new Placement(ids, { weights: c.nodes.map((n) => Number(n.weight)) }), ids };
}

const invalidCount = (err) => err instanceof RangeError && err.code === 'HRW_INVALID_COUNT';

test('policy name', () => {
  assert.equal(VECTORS.policy, hrwhash.REPLICA_BALANCE_POLICY);
  assert.equal(hrwhash.REPLICA_BALANCE_POLICY, 'replica-balance-v2');
});

test('replica-balance cases', () => {
  assert.ok(VECTORS.cases.length > 0);
  for (const c of VECTORS.cases) {
    const { p, ids } = membership(c);
    const r = new ReplicaBalance(p, c.k);
    assert.equal(r.k, c.k);
    assert.deepEqual(r.adjustedFixed, c.expected.adjusted_fixed.map(BigInt), c.name);
    assert.equal(r.iterations, c.expected.iterations, c.name);
    assert.equal(r.adjustedWeights.length, ids.length);
    for (const item of c.expected.replicas) {
      assert.deepEqual(r.replicaIndices(item.key), item.replicas, `${c.name} ${item.key}`);
      assert.deepEqual(r.replicas(item.key), item.replicas.map((i) => ids[i]), `${c.name} ${item.key}`);
    }
  }
});

test('replica-balance error cases', () => {
  assert.ok(VECTORS.error_cases.length > 0);
  for (const c of VECTORS.error_cases) {
    const { p } = membership(c);
    const check =
      c.error === 'InvalidCount'
        ? invalidCount
        : hasCode('HRW_INFEASIBLE_REPLICA_WEIGHTS', 'index' in c ? { index: c.index, k: c.k } : {});
    assert.throws(() => new ReplicaBalance(p, c.k), check, c.name);
  }
});

test('replica-balance residual and the iteration cap', () => {
  const r = new ReplicaBalance(new Placement(['a', 'b', 'c', 'd'], { weights: [3, 3, 3, 1] }), 3);
  assert.ok(r.residual <= 2 ** -20, String(r.residual));
  const limit = new ReplicaBalance(new Placement(['a', 'b', 'c'], { weights: [2, 1, 1] }), 2);
  assert.equal(limit.iterations, 64);
  assert.ok(limit.residual > 2 ** -20);
});

test('replica-balance misuse', () => {
  const p = new Placement(['a', 'b', 'c'], { weights: [1, 1, 1] });
  for (const bad of [-1, 1.5, NaN, Infinity]) assert.throws(() => new ReplicaBalance(p, bad), invalidCount);
  for (const bad of ['2', null, undefined, 2n, {}]) typeError(() => new ReplicaBalance(p, bad));
  typeError(() => new ReplicaBalance([1, 2], 2));
  typeError(() => new ReplicaBalance('placement', 2));
  const r = new ReplicaBalance(p, 2);
  typeError(() => r.replicas(null));
  typeError(() => r.replicaIndices(3));
  assert.throws(() => r.replicas('\ud800'), hasCode('HRW_INVALID_TEXT'));
  assert.equal(r.k, 2);
  assert.equal(r.replicas('k').length, 2);
  assert.equal(typeof r.replicas('k')[0], 'string');
  assert.deepEqual(r.replicas(Buffer.from('k')), r.replicas('k'));
});
