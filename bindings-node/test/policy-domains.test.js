// Every case of ../conformance/policies/domains.json (POLICIES.md, "domains (v1)") through the
// public API, and every bad input of the policy.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Placement, Domains, DOMAINS_POLICY } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'domains.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));
const codeOf = (variant) => 'HRW_' + variant.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/** Text of the file as the binding takes it: a string, or a Buffer for `<name>_hex`. */
const textOf = (o, name) => {
  if (o[name] !== undefined) return o[name];
  if (o[`${name}_hex`] !== undefined) return Buffer.from(o[`${name}_hex`], 'hex');
  return null;
};
const placementOf = (c) =>
  new Placement(
    c.nodes.map((n) => ({ id: textOf(n, 'id'), weight: n.weight ?? 1, domain: textOf(n, 'domain') })),
    c.seed !== undefined ? { seed: c.seed } : undefined,
  );

test('the file is the domains-v1 policy and has both kinds of case', () => {
  assert.equal(vectors.policy, DOMAINS_POLICY);
  assert.equal(DOMAINS_POLICY, 'domains-v1');
  assert.deepEqual(Object.keys(vectors).sort(), ['_comment', 'algorithm', 'cases', 'default_seed', 'error_cases', 'policy', 'version']);
  assert.ok(vectors.cases.length >= 15 && vectors.error_cases.length >= 20);
});

for (const c of vectors.cases) {
  test(`case: ${c.name}`, () => {
    const p = placementOf(c);
    const d = new Domains(p, c.level);
    assert.equal(d.level, c.level);
    assert.equal(d.domainCount, c.domain_count);
    assert.equal(d.placement, p);
    const ids = c.nodes.map((n) => textOf(n, 'id'));
    for (const l of c.lookups) {
      const key = textOf(l, 'key');
      assert.deepEqual(d.owner(key), ids[l.owner]);
      const want = l.replicas.map((i) => ids[i]);
      for (let k = 1; k <= c.k_max; k++) assert.deepEqual(d.replicas(key, k), want.slice(0, k));
    }
  });
}

for (const c of vectors.error_cases) {
  test(`error: ${c.name}`, () => {
    assert.throws(
      () => {
        const d = new Domains(placementOf(c), c.level);
        if (c.k !== undefined) d.replicas(c.key, c.k);
      },
      (e) => {
        assert.equal(e.code, codeOf(c.error));
        if (c.error === 'InvalidDomains') {
          assert.equal(e.index, c.index);
          assert.equal(e.reason, c.reason);
        }
        if (c.error === 'InvalidReplicaCount') {
          assert.ok(e instanceof RangeError);
          assert.equal(e.requested, c.requested);
          assert.equal(e.available, c.available);
        }
        return true;
      },
    );
  });
}

const fleet = () => new Placement(Array.from({ length: 8 }, (_, i) => ({ id: `n${i}`, domain: `z${i % 2}/r${i % 4}` })));

test('replicas spread over the level and start with the owner', () => {
  const d = new Domains(fleet(), 1);
  assert.equal(d.depth, 2);
  for (let i = 0; i < 200; i++) {
    const r = d.replicas(`key-${i}`, 4);
    assert.equal(r[0], d.owner(`key-${i}`));
    assert.equal(new Set(r.map((n) => d.domainOf(n))).size, 4);
  }
  assert.equal(d.domainOf('n5'), 'z1/r1');
  assert.deepEqual(new Domains(new Placement([{ id: 'a', domain: Buffer.from([0x7a, 0xff, 0x2f, 0x72]) }]), 0).domainOf('a'), Buffer.from([0x7a, 0xff]));
});

test('bad counts, types and ids are typed errors', () => {
  for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 60]) {
    assert.throws(() => new Domains(fleet(), bad), (e) => e instanceof RangeError && e.code === 'HRW_INVALID_COUNT');
    assert.throws(() => new Domains(fleet(), 0).replicas('key', bad), (e) => e instanceof RangeError && e.code === 'HRW_INVALID_COUNT');
  }
  for (const bad of ['0', null, true, {}]) {
    assert.throws(() => new Domains(fleet(), bad), TypeError);
    assert.throws(() => new Domains(bad, 0), TypeError);
    assert.throws(() => new Domains(fleet(), 0).owner(bad === '0' ? 7 : bad), TypeError);
  }
  assert.throws(() => new Domains(fleet(), 0).owner('\ud800'), (e) => e.code === 'HRW_INVALID_TEXT');
  assert.throws(() => new Domains(fleet(), 0).domainOf('nobody'), (e) => e.code === 'HRW_UNKNOWN_NODE');
  assert.throws(() => new Domains(fleet(), 0).replicas('key', 0), (e) => e.code === 'HRW_INVALID_REPLICA_COUNT' && e.available === 8);
  assert.throws(() => new Domains(new Placement(['x', 'y']), 0), (e) => e.code === 'HRW_INVALID_DOMAINS' && e.index === 0 && e.reason === 'missing');
  assert.throws(() => new Domains(new Placement([{ id: 'x', domain: 'a/b' }]), 2), (e) => e.code === 'HRW_INVALID_DOMAINS' && e.index === null && e.reason === 'level_out_of_range');
});
