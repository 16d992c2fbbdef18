// The per-call shortcuts of src/fast.rs (the last receiver remembered) and src/gather.rs (short
// answers built in JS) must give exactly the answers of the general paths.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { Placement } = require('hrwhash');

const ids = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

test('alternating receivers each answer for themselves', () => {
  const a = new Placement(ids(20, 'a'));
  const b = new Placement(ids(20, 'b'));
  const keys = ids(200, 'key');
  // Answers asked one placement at a time, then interleaved call by call.
  const alone = (p) => keys.map((k) => [p.owner(k), p.rank(k, 3)]);
  const [ea, eb] = [alone(a), alone(b)];
  keys.forEach((k, i) => {
    assert.deepEqual([a.owner(k), a.rank(k, 3)], ea[i]);
    assert.deepEqual([b.owner(k), b.rank(k, 3)], eb[i]);
  });
  assert.ok(ea.every(([o]) => o.startsWith('a-')) && eb.every(([o]) => o.startsWith('b-')));
  // A foreign receiver right after a remembered one is still refused with the package's code.
  for (const fake of [{}, Object.create(Placement.prototype)]) {
    assert.throws(() => Placement.prototype.owner.call(fake, 'k'), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => Placement.prototype.rank.call(fake, 'k', 2), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.equal(a.owner(keys[0]), ea[0][0]);
  }
});

test('rank hands back the strings it was given, in order, for every k', () => {
  // One id holds a U+FFFD the caller wrote; another is a string built at run time.
  const given = ['x\ufffdy', ['ru', 'n'].join(''), ...ids(30, 'n')];
  const p = new Placement(given);
  for (const key of ids(50, 'key')) {
    const full = p.rank(key, given.length);
    assert.equal(full.length, given.length);
    assert.deepEqual([...full].sort(), [...given].sort());
    for (const k of [0, 1, 2, 3, 16, 17, 31, 40]) {
      const r = p.rank(key, k);
      assert.ok(Array.isArray(r));
      assert.deepEqual(r, full.slice(0, Math.min(k, given.length)), `k=${k}`);
      for (const id of r) assert.ok(given.includes(id));
    }
    assert.equal(p.rank(key, 1)[0], p.owner(key));
    // Each answer is a new array: changing one changes no later answer.
    p.rank(key, 3).push('changed');
    assert.equal(p.rank(key, 3).length, 3);
  }
});

test('byte ids keep coming back as new Buffers beside string ids', () => {
  const p = new Placement([Buffer.from('b-0'), 'b-1', Buffer.from('b-2'), 'b-3']);
  const q = new Placement(['b-0', 'b-1', 'b-2', 'b-3']);
  for (const key of ids(100, 'key')) {
    const r = p.rank(key, 3);
    const s = q.rank(key, 3);
    assert.deepEqual(r.map(String), s);
    r.forEach((id, j) => assert.equal(Buffer.isBuffer(id), s[j] === 'b-0' || s[j] === 'b-2'));
  }
});

test('a remembered receiver that is collected leaves no stale answer', () => {
  const script = `
    const assert = require('node:assert/strict');
    const { Placement } = require(${JSON.stringify(require.resolve('hrwhash'))});
    let expected = null;
    for (let round = 0; round < 200; round++) {
      let p = new Placement(['r' + round + '-a', 'r' + round + '-b', 'r' + round + '-c']);
      const got = [p.owner('k'), ...p.rank('k', 3)];
      assert.ok(got.every((id) => id.startsWith('r' + round + '-')), got.join());
      p = null;
      if (round % 20 === 0) globalThis.gc();
      assert.throws(() => Placement.prototype.owner.call(Object.create(Placement.prototype), 'k'),
        { code: 'ERR_INVALID_ARG_TYPE' });
    }
    process.stdout.write('done');
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'done');
});

// owner and rank of src/fast.js: the native lookup leaves positions in a scratch array that the
// JS side reads. Answers are checked against ownerIndex and nodes(), which do not go through it.
test('owner and rank agree with ownerIndex and nodes() for string, byte and mixed ids', () => {
  const placements = [
    new Placement(ids(7, 's')),
    new Placement(ids(7, 's').map((id) => Buffer.from(id))),
    new Placement(ids(7, 's').map((id, i) => (i % 2 ? Buffer.from(id) : id))),
    new Placement(ids(40, 's'), { weights: ids(40, 's').map((_, i) => i % 5) }),
  ];
  const keys = ids(300, 'key');
  // Calls alternate between placements, so an answer left in the scratch by one is never read
  // for the next (a byte id answer writes none).
  for (const key of keys) {
    for (const p of placements) {
      const all = p.nodes().map((n) => n.id);
      const owner = p.owner(key);
      assert.deepEqual(owner, all[p.ownerIndex(key)]);
      assert.equal(Buffer.isBuffer(owner), Buffer.isBuffer(all[p.ownerIndex(key)]));
      const full = p.rank(key, all.length);
      assert.deepEqual(full[0], owner);
      for (const k of [0, 1, 3, 16, 17, 100]) assert.deepEqual(p.rank(key, k), full.slice(0, k));
    }
  }
});

test('a call that throws leaves no answer behind for the next', () => {
  const p = new Placement(ids(5, 't'));
  const q = new Placement([Buffer.from('b-0'), Buffer.from('b-1')]);
  for (const key of ids(50, 'key')) {
    p.owner(key);
    assert.throws(() => p.rank(key, -1), { code: 'HRW_INVALID_COUNT' });
    assert.throws(() => p.owner(42), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => Placement.prototype.owner.call({}, key), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.ok(Buffer.isBuffer(q.owner(key)));
    assert.ok(q.rank(key, 2).every((id) => Buffer.isBuffer(id)));
    p.rank(key, 3);
    assert.ok(Buffer.isBuffer(q.owner(key)));
  }
});

test('owner and rank are plain methods named as before', () => {
  for (const name of ['owner', 'rank']) {
    const d = Object.getOwnPropertyDescriptor(Placement.prototype, name);
    assert.equal(typeof d.value, 'function');
    assert.equal(d.value.name, name);
    assert.equal(d.enumerable, false);
    // Called without a receiver, as a detached method.
    const f = d.value;
    assert.throws(() => f('k', 1), { code: 'ERR_INVALID_ARG_TYPE' });
  }
});
