// Every case of ../conformance/transitions.json (VIEW.md 6) through the public API: expected
// movement between seeds, routeTop's sets and add/drop order, and the rows of a diff. What the
// binding does not offer is skipped only as the file's not_offered names it for Node.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { View, Transition } = require('hrwhash');

const file = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'transitions.json'), 'utf8'));
const LANGUAGE = 'node';
// Diff.nodes rows name ids (with inOld and inNew) and have no added or dropped; a diff counts
// owners only.
const SKIPPED = ['diff_row_indexes', 'diff_row_moves', 'replica_diffs'];

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
  const skip = c.k !== 1 && `not offered: ${file.not_offered[LANGUAGE].replica_diffs}`;
  test(`diffs: ${c.name}`, { skip }, () => {
    const [old, neu] = sides(c);
    const t = new Transition(old, neu);
    const keys = Array.from({ length: c.keys }, (_, i) => `key-${i}`);
    const d = t.diff(keys);
    assert.equal(d.keys, c.keys_counted);
    assert.equal(d.moved, c.moved);
    const [o, n] = [ids(old), ids(neu)];
    assert.deepEqual(d.flows, c.flows.map(([f, to, count]) => ({ from: o[f], to: n[to], count })));
    // Rows in the file's order, each with its id, presence and counts (no indexes or moves).
    assert.deepEqual(
      d.nodes,
      c.nodes.map((r) => ({
        id: r.id,
        before: r.before,
        after: r.after,
        inOld: r.old_index !== null,
        inNew: r.new_index !== null,
      })),
    );
  });
}
