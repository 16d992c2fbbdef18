// Every case of ../conformance/transitions.json (VIEW.md 6) through the public API: expected
// movement between seeds, routeTop's sets and add/drop order, and the rows of a diff. What the
// binding does not offer is skipped only as the file's not_offered names it for Node.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { View, Transition, Placement, ProfilePlacement } = require('hrwhash');

const file = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'transitions.json'), 'utf8'));
const LANGUAGE = 'node';
// Node runs every part.
const SKIPPED = [];

const load = (c, doc, seed) => View.fromJson(c[doc], c[seed] !== undefined ? { seed: c[seed] } : undefined);
const sides = (c) => [load(c, 'from', 'from_seed'), load(c, 'to', 'to_seed')];
const ids = (view) => view.placement.nodes().map((n) => n.id);

test('the file has the sections this suite runs, and not_offered names what Node skips', () => {
  assert.equal(file.format, 'hrwhash-view-v1');
  assert.deepEqual(Object.keys(file).sort(), ['_comment', 'diffs', 'format', 'movement', 'not_offered', 'routes']);
  assert.deepEqual(Object.keys(file.not_offered[LANGUAGE]).sort(), SKIPPED);
  for (const s of ['movement', 'routes', 'diffs']) assert.ok(file[s].length > 0, `no ${s} cases`);
});

for (const c of file.movement) {
  test(`movement: ${c.name}`, () => {
    const t = new Transition(...sides(c));
    assert.equal(t.expectedMoved, c.expected_moved);
    assert.equal(t.optimum, c.optimum);
    const d = t.diff([]);
    assert.equal(d.expectedMoved, c.expected_moved);
    assert.equal(d.optimum, c.optimum);
  });
}

for (const c of file.routes) {
  test(`routes: ${c.name}`, () => {
    const [old, neu] = sides(c);
    const t = new Transition(old, neu);
    // The binding names nodes by id: the file's indexes are into each side's build order.
    const [o, n] = [ids(old), ids(neu)];
    for (const r of c.routes) {
      const got = t.routeTop(r.key, c.k);
      assert.deepEqual(got.before, r.before.map((i) => o[i]), r.key);
      assert.deepEqual(got.after, r.after.map((j) => n[j]), r.key);
      assert.deepEqual(got.add, r.add.map((j) => n[j]), r.key);
      assert.deepEqual(got.drop, r.drop.map((i) => o[i]), r.key);
    }
  });
}

for (const c of file.diffs) {
  test(`diffs: ${c.name}`, () => {
    const [old, neu] = sides(c);
    const t = new Transition(old, neu);
    const keys = Array.from({ length: c.keys }, (_, i) => `key-${i}`);
    // diffTop with k = 1 counts what diff counts, without the flows.
    if (c.k === 1) checkDiff(c, t.diff(keys), old, neu, false);
    checkDiff(c, t.diffTop(keys, c.k), old, neu, true);
    // The plan lists exactly the keys the diff counts as changed, with the sets routeTop gives.
    const planned = c.k === 1 ? [...t.plan(keys)] : [...t.planTop(keys, c.k)];
    assert.equal(planned.length, c.moved);
    if (c.k !== 1) {
      for (const m of planned.slice(0, 20)) assert.deepEqual(m.route, t.routeTop(m.key, c.k));
      assert.equal(planned.reduce((s, m) => s + m.route.add.length, 0), c.copies_added);
      assert.equal(planned.reduce((s, m) => s + m.route.drop.length, 0), c.copies_dropped);
    }
  });
}

function checkDiff(c, d, old, neu, top) {
  assert.equal(d.k, c.k);
  assert.equal(d.keys, c.keys_counted);
  assert.equal(d.moved, c.moved);
  const [o, n] = [ids(old), ids(neu)];
  const flows = top ? [] : c.flows.map(([f, to, count]) => ({ from: o[f], to: n[to], count }));
  assert.deepEqual(d.flows, flows);
  assert.equal(d.copiesAdded, c.k === 1 ? c.moved : c.copies_added);
  assert.equal(d.copiesDropped, c.k === 1 ? c.moved : c.copies_dropped);
  // Rows in the file's order, each with its id, presence, indexes and counts.
  assert.deepEqual(
    d.nodes,
    c.nodes.map((r) => ({
      id: r.id,
      before: r.before,
      after: r.after,
      inOld: r.old_index !== null,
      inNew: r.new_index !== null,
      oldIndex: r.old_index,
      newIndex: r.new_index,
      added: r.added,
      dropped: r.dropped,
    })),
  );
}

test('diffTop and planTop take k as routeTop does: checked as a count, capped at the nodes', () => {
  const c = file.diffs.find((x) => x.k > 1);
  const [old, neu] = sides(c);
  const t = new Transition(old, neu);
  const keys = ['a', 'b', 'c'];
  for (const bad of [-1, 1.5, NaN, Infinity]) {
    assert.throws(() => t.diffTop(keys, bad), { code: 'HRW_INVALID_COUNT' });
    assert.throws(() => t.planTop(keys, bad), { code: 'HRW_INVALID_COUNT' });
  }
  for (const bad of ['2', null, 2n]) {
    assert.throws(() => t.diffTop(keys, bad), TypeError);
    assert.throws(() => t.planTop(keys, bad), TypeError);
  }
  // k = 0 compares empty sets: nothing changes; a k beyond the nodes compares every node.
  const none = t.diffTop(keys, 0);
  assert.equal(none.moved, 0);
  assert.ok(none.nodes.every((r) => r.before === 0 && r.after === 0));
  assert.deepEqual([...t.planTop(keys, 0)], []);
  const all = old.placement.nodes().length + neu.placement.nodes().length;
  const [big, whole] = [t.diffTop(keys, 1000), t.diffTop(keys, all)];
  assert.equal(big.k, 1000);
  assert.deepEqual({ ...big, k: all }, whole);
  assert.ok(whole.nodes.some((r) => r.before > 0));
});

test('diffTop and planTop need hrw-v1 on both sides', () => {
  const t = new Transition(new ProfilePlacement('pymemcache-rendezvous', ['a', 'b']), new Placement(['a', 'b', 'c']));
  assert.throws(() => t.diffTop(['k'], 2), { code: 'HRW_NOT_OFFERED' });
  assert.throws(() => t.planTop(['k'], 2), { code: 'HRW_NOT_OFFERED' });
});
