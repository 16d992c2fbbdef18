// Replica routes follow each side's replicas(), and replicasStrict() refuses to co-locate.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Placement, Transition } = require('hrwhash');

/** Three zones of three nodes, without the zone named `lost`. */
function zoned(lost) {
  const nodes = [];
  for (const z of ['a', 'b', 'c']) {
    if (z === lost) continue;
    for (let i = 0; i < 3; i++) nodes.push({ id: `${z}${i}`, domain: z });
  }
  return new Placement(nodes);
}

test('routeTop() is replicas() on both sides, for 10,000 keys', () => {
  const old = zoned();
  const nu = zoned('c');
  const t = new Transition(old, nu);
  let rankedDifferently = 0;
  for (let i = 0; i < 10000; i++) {
    const key = `key-${i}`;
    const r = t.routeTop(key, 3);
    assert.deepEqual(r.before, old.replicas(key, 3));
    assert.deepEqual(r.after, nu.replicas(key, 3));
    if (JSON.stringify(old.rank(key, 3)) !== JSON.stringify(r.before)) rankedDifferently++;
  }
  // The plain ranking would route most keys from a set they are not stored on.
  assert.ok(rankedDifferently > 5000, `${rankedDifferently}`);
});

test('replicasStrict() refuses fewer failure domains than k', () => {
  const whole = zoned();
  const lost = zoned('b');
  for (let i = 0; i < 1000; i++) {
    const key = `key-${i}`;
    assert.deepEqual(whole.replicasStrict(key, 3), whole.replicas(key, 3));
    assert.deepEqual(lost.replicasStrict(key, 2), lost.replicas(key, 2));
  }
  assert.throws(() => lost.replicasStrict('k', 3), (e) => {
    assert.equal(e.name, 'RangeError');
    assert.equal(e.code, 'HRW_INVALID_REPLICA_COUNT');
    assert.equal(e.requested, 3);
    assert.equal(e.available, 2);
    return true;
  });
  assert.deepEqual(lost.replicasStrict('k', 0), []);
  assert.throws(() => lost.replicasStrict('k', -1), { code: 'HRW_INVALID_COUNT' });
});
