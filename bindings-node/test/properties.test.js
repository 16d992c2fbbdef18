// Properties of rendezvous hashing that hold for any membership and key (fast-check).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { Placement } = require('hrwhash');

const RUNS = { numRuns: 200 };
const id = fc.string({ minLength: 1, maxLength: 12 });
const ids = fc.uniqueArray(id, { minLength: 1, maxLength: 40 });
const key = fc.oneof(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }));
const keys = fc.array(key, { minLength: 1, maxLength: 50 });
const seed = fc.uint8Array({ minLength: 16, maxLength: 16 });
const weight = fc.oneof(fc.constant(1), fc.double({ min: 0.01, max: 100, noNaN: true }));

test('determinism: the owner does not depend on build order or on how the key is passed', () => {
  fc.assert(
    fc.property(ids, keys, seed, (nodes, ks, s) => {
      const a = new Placement(nodes, { seed: s });
      const b = new Placement([...nodes].reverse(), { seed: Buffer.from(s).toString('hex') });
      for (const k of ks) {
        const owner = a.owner(k);
        assert.equal(b.owner(k), owner);
        const bytes = typeof k === 'string' ? Buffer.from(k, 'utf8') : k;
        assert.equal(a.owner(bytes), owner);
        assert.equal(nodes[a.ownerIndex(k)], owner);
      }
    }),
    RUNS,
  );
});

test('adding a node moves only the keys the new node wins', () => {
  fc.assert(
    fc.property(ids, id, keys, (nodes, extra, ks) => {
      fc.pre(!nodes.includes(extra));
      const before = new Placement(nodes);
      const after = before.withNode(extra);
      assert.equal(after.length, nodes.length + 1);
      for (const k of ks) {
        const o = after.owner(k);
        assert.ok(o === before.owner(k) || o === extra, `key ${String(k)} moved to ${o}, not to ${extra}`);
      }
    }),
    RUNS,
  );
});

test('removing a node moves only that node\'s keys', () => {
  fc.assert(
    fc.property(ids, keys, fc.nat(), (nodes, ks, pick) => {
      fc.pre(nodes.length >= 2);
      const gone = nodes[pick % nodes.length];
      const before = new Placement(nodes);
      const after = before.withoutNode(gone);
      assert.ok(!after.nodes().some((n) => n.id === gone));
      for (const k of ks) {
        const o = before.owner(k);
        if (o !== gone) assert.equal(after.owner(k), o);
        else assert.equal(after.owner(k), before.rank(k, 2)[1]);
      }
    }),
    RUNS,
  );
});

test('weighted: a weight change moves keys only to or from that node; weight 0 drains it', () => {
  fc.assert(
    fc.property(ids, fc.array(weight, { minLength: 40, maxLength: 40 }), keys, fc.nat(), weight, (nodes, ws, ks, pick, w) => {
      const p = new Placement(nodes, { weights: ws.slice(0, nodes.length) });
      const node = nodes[pick % nodes.length];
      const q = p.withWeight(node, w);
      for (const k of ks) {
        const [a, b] = [p.owner(k), q.owner(k)];
        assert.ok(a === b || a === node || b === node);
      }
      if (nodes.length > 1) {
        const drained = p.withWeight(node, 0);
        assert.equal(drained.selectableLength, nodes.length - 1);
        for (const k of ks) assert.notEqual(drained.owner(k), node);
      }
    }),
    RUNS,
  );
});

test('rankings: owner first, distinct, a prefix of longer rankings; batch forms agree', () => {
  fc.assert(
    fc.property(ids, keys, fc.integer({ min: 0, max: 45 }), (nodes, ks, k) => {
      const p = new Placement(nodes);
      const rows = p.rankMany(ks, k);
      assert.deepEqual(p.owners(ks), ks.map((x) => p.owner(x)));
      ks.forEach((x, i) => {
        const r = p.rank(x, k);
        assert.equal(r.length, Math.min(k, nodes.length));
        assert.equal(new Set(r).size, r.length);
        if (k > 0) assert.equal(r[0], p.owner(x));
        assert.deepEqual(p.rank(x, nodes.length).slice(0, r.length), r);
        assert.deepEqual(rows[i], r);
        // Replicas without domains are the ranking.
        assert.deepEqual(p.replicas(x, k), r);
      });
      const bytes = ks.map((x) => (typeof x === 'string' ? Buffer.from(x) : Buffer.from(x)));
      const offsets = new Uint32Array(bytes.length + 1);
      bytes.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length));
      assert.deepEqual(Array.from(p.ownerIndices(Buffer.concat(bytes), offsets)), ks.map((x) => p.ownerIndex(x)));
    }),
    RUNS,
  );
});

test('replicas use distinct failure domains while there are unused ones', () => {
  fc.assert(
    fc.property(ids, keys, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 8 }), (nodes, ks, domains, k) => {
      const specs = nodes.map((n, i) => ({ id: n, domain: `d${i % domains}` }));
      const p = new Placement(specs);
      const domainOf = new Map(specs.map((s) => [s.id, s.domain]));
      for (const x of ks) {
        const r = p.replicas(x, k);
        assert.equal(r.length, Math.min(k, nodes.length));
        const distinct = new Set(r.map((n) => domainOf.get(n))).size;
        assert.equal(distinct, Math.min(r.length, new Set(specs.map((s) => s.domain)).size));
      }
    }),
    RUNS,
  );
});

test('ids come back in the form they were given', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 10, selector: (b) => Buffer.from(b).toString('hex') }), key, (raw, k) => {
      const mixed = raw.map((b, i) => (i % 2 ? Buffer.from(b).toString('hex') : b));
      fc.pre(new Set(mixed.map((m) => Buffer.from(m).toString('hex'))).size === mixed.length);
      const p = new Placement(mixed);
      const o = p.owner(k);
      const i = p.ownerIndex(k);
      if (i % 2) assert.equal(o, mixed[i]);
      else {
        assert.ok(Buffer.isBuffer(o));
        assert.ok(Buffer.from(mixed[i]).equals(o));
        o.fill(0); // a returned Buffer is the caller's own copy
        assert.ok(Buffer.from(mixed[i]).equals(p.owner(k)));
      }
    }),
    RUNS,
  );
});
