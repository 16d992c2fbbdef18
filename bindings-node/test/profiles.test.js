// Compatibility profiles (conformance/PROFILES.md): every recorded vector of every profile, bad
// input, and the npm hashring package itself side by side with hashring-node-3 on 100,000 keys.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const HashRing = require('hashring');
const { Placement, ProfilePlacement, Transition } = require('hrwhash');

const DIR = path.join(__dirname, '..', '..', 'conformance', 'profiles');
const NAMES = ['go-redis-ring-v9', 'pymemcache-rendezvous', 'ketama-libmemcached', 'hashring-node-3'];
/** `name` as the vector files write it: text, or a Buffer for `<name>_hex`. */
const textOf = (o, name) => (o[name + '_hex'] !== undefined ? Buffer.from(o[name + '_hex'], 'hex') : o[name]);

for (const name of NAMES) {
  test(`every recorded lookup of ${name}`, () => {
    const doc = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8'));
    assert.equal(doc.profile, name);
    let lookups = 0;
    for (const c of doc.cases) {
      const ids = c.nodes.map((n) => textOf(n, 'id'));
      const weights = c.nodes[0].weight !== undefined ? c.nodes.map((n) => n.weight) : undefined;
      const p = new ProfilePlacement(name, ids, weights ? { weights } : undefined);
      assert.equal(p.profile, name);
      assert.equal(p.length, ids.length);
      assert.deepEqual(p.nodes, ids);
      const keys = c.lookups.map((l) => textOf(l, 'key'));
      assert.deepEqual(p.owners(keys), c.lookups.map((l) => textOf(l, 'owner')));
      for (const [i, l] of c.lookups.entries()) {
        assert.deepEqual(p.owner(keys[i]), textOf(l, 'owner'), `${name} ${JSON.stringify(l)}`);
        if (l.replicas !== undefined) {
          for (let k = 0; k <= l.replicas.length + 1; k++) assert.deepEqual(p.replicas(keys[i], k), l.replicas.slice(0, k));
        } else {
          assert.throws(() => p.replicas(keys[i], 1), { code: 'HRW_NOT_OFFERED' });
        }
        lookups++;
      }
    }
    assert.ok(lookups > 100);
  });
}

test('bad input is a typed error with a stable code', () => {
  assert.throws(() => new ProfilePlacement('go-redis', ['a']), { code: 'HRW_UNKNOWN_PROFILE' });
  assert.throws(() => new ProfilePlacement('go-redis-ring-v9', ['a', 'b'], { weights: [1, 2] }), { code: 'HRW_NOT_OFFERED' });
  assert.throws(() => new ProfilePlacement('ketama-libmemcached', ['a:1', 'b:1'], { weights: [1, 0] }), { code: 'HRW_NOT_OFFERED' });
  assert.throws(() => new ProfilePlacement('hashring-node-3', ['a', 'b'], { weights: [1, 1.5] }), { code: 'HRW_NOT_OFFERED' });
  assert.throws(() => new ProfilePlacement('hashring-node-3', [{ id: 'a', domain: 'z' }]), { code: 'HRW_NOT_OFFERED' });
  // Ids that read as two different libmemcached servers (PROFILES.md 4, "Nodes").
  for (const id of ['2001:db8::0', '2001:db8::11211', '/run/memcached.sock', '[::1']) {
    assert.throws(() => new ProfilePlacement('ketama-libmemcached', [id, 'b:1']), { code: 'HRW_NOT_OFFERED' }, id);
  }
  assert.throws(() => new ProfilePlacement('hashring-node-3', []), { code: 'HRW_EMPTY_MEMBERSHIP' });
  assert.throws(() => new ProfilePlacement('hashring-node-3', ['a', 'a']), { code: 'HRW_DUPLICATE_NODE_ID', index: 1, firstIndex: 0 });
  assert.throws(() => new ProfilePlacement('hashring-node-3', ['a', 'b'], { weights: [1] }), { code: 'HRW_LENGTH_MISMATCH' });
  assert.throws(() => new ProfilePlacement('hashring-node-3', ['a'], { seed: '00' }), TypeError);
  assert.throws(() => new ProfilePlacement(7, ['a']), TypeError);
  assert.throws(() => new ProfilePlacement('hashring-node-3', 'ab'), TypeError);
  const p = new ProfilePlacement('hashring-node-3', ['a', 'b']);
  assert.throws(() => p.owner(null), TypeError);
  assert.throws(() => p.owner('\ud800'), { code: 'HRW_INVALID_TEXT' });
  assert.throws(() => p.replicas('k', -1), { code: 'HRW_INVALID_COUNT' });
  assert.throws(() => p.owners(['a', 3]), TypeError);
  assert.throws(() => new ProfilePlacement('pymemcache-rendezvous', ['a']).replicas('k', 1), { code: 'HRW_NOT_OFFERED' });
  assert.throws(() => new Transition(['a'], p), TypeError);
});

/** ASCII, Latin-1, CJK, emoji and `{hashtag}` keys of 0 to 24 code points, from a fixed seed. */
function randomKeys(n, seed) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const alphabets = [
    [...'abcdefghijklmnopqrstuvwxyz0123456789:_-'],
    [...'\u00e9\u00fc\u00df\u00e5\u00f8\u0161\u017e'],
    [...'\u4e2d\u6587\u65e5\u672c\u8a9e'],
    [...'\u{1f600}\u{1f680}\u{1f9e0}\u2764\ufe0f'],
  ];
  const keys = [];
  for (let i = 0; i < n; i++) {
    const a = alphabets[Math.floor(next() * 4)];
    let k = '';
    for (let j = Math.floor(next() * 25); j > 0; j--) k += a[Math.floor(next() * a.length)];
    // Sliced by code point: slicing UTF-16 units would cut an emoji into lone surrogates.
    const cps = [...k];
    if (next() < 0.2) k = `user:{${cps.slice(0, 4).join('')}}:${cps.slice(4).join('')}`;
    keys.push(k);
  }
  return keys;
}

test('hashring and hashring-node-3 agree on 100,000 random keys', () => {
  const servers = { '10.0.0.1:11211': 1, '10.0.0.2:11211': 3, 'cache-\u00e9:11211': 2, 'node-\u{1f680}:6379': 5, '10.0.0.5:11212': 1 };
  // The object form's order is hashring's server order (Object.keys).
  const ids = Object.keys(servers);
  const incumbent = new HashRing(servers);
  const ours = new ProfilePlacement('hashring-node-3', ids, { weights: ids.map((id) => servers[id]) });
  const keys = randomKeys(100000, 20261201);
  const got = ours.owners(keys);
  const disagreements = keys.filter((k, i) => incumbent.get(k) !== got[i]);
  assert.deepEqual(disagreements, []);
  assert.equal(new Set(got).size, ids.length);
  for (const k of keys.slice(0, 2000)) assert.deepEqual(ours.replicas(k, 3), incumbent.range(k, 3));
  // Buffers: hashring hashes `buffer + ''`, the decoded text.
  const buffers = keys.slice(0, 5000).map((k, i) => Buffer.concat([Buffer.from(k), Buffer.from([0x80 + (i % 64)])]));
  assert.deepEqual(ours.owners(buffers), buffers.map((b) => incumbent.get(b)));
});

test('a Transition from a profile counts every move with its flow', () => {
  const ids = ['a:11211', 'b:11211', 'c:11211'];
  const keys = Array.from({ length: 5000 }, (_, i) => `key-${i}`);
  for (const name of NAMES) {
    const old = new ProfilePlacement(name, ids);
    const next = new Placement([...ids, 'd:11211']);
    const t = new Transition(old, next);
    assert.ok(t.oldPlacement instanceof ProfilePlacement && t.newPlacement instanceof Placement);
    assert.equal(t.oldPlacement.profile, name);
    const d = t.diff(keys);
    assert.equal(d.keys, 5000);
    const counts = new Map();
    for (const k of keys) {
      const [a, b] = [old.owner(k), next.owner(k)];
      if (a !== b) counts.set(`${a}>${b}`, (counts.get(`${a}>${b}`) || 0) + 1);
    }
    assert.equal(d.moved, [...counts.values()].reduce((x, y) => x + y, 0));
    assert.deepEqual(new Map(d.flows.map((f) => [`${f.from}>${f.to}`, f.count])), counts);
    assert.deepEqual(d.nodes.map((n) => n.id), [...ids, 'd:11211']);
    assert.deepEqual(
      [...t.plan(keys)].map((m) => [m.key, m.from, m.to]),
      keys.filter((k) => old.owner(k) !== next.owner(k)).map((k) => [k, old.owner(k), next.owner(k)]),
    );
    const r = t.route(keys[0]);
    assert.deepEqual([r.old, r.new], [old.owner(keys[0]), next.owner(keys[0])]);
    // Owners only: no expected movement, no replica routes.
    assert.deepEqual([d.expectedMoved, d.optimum, t.expectedMoved, t.optimum], [null, null, null, null]);
    assert.throws(() => t.routeTop(keys[0], 2), { code: 'HRW_NOT_OFFERED' });
    const grown = new ProfilePlacement(name, [...ids, 'd:11211']);
    const g = new Transition(old, grown).diff(keys);
    assert.equal(g.moved, keys.filter((k) => old.owner(k) !== grown.owner(k)).length);
    assert.equal(new Transition(old, old).diff(keys).moved, 0);
    assert.equal(new Transition(next, old).diff(keys).moved, d.moved);
  }
});
