// Every case of ../conformance/policies/slot-table-v2.json (POLICIES.md, "slot-table-v2")
// through the public API: first tables, change sequences in their order, error cases; and every
// bad input of LevelledSlotTable with the error it throws.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { LevelledSlotTable, LEVELLED_SLOTS_POLICY, Placement, View } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'slot-table-v2.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));

const placementOf = (c) =>
  new Placement(
    c.nodes.map((n) => ({ id: n.id, weight: n.weight ?? 1 })),
    c.seed !== undefined ? { seed: c.seed } : undefined,
  );

function apply(table, ids, ch) {
  if (ch.op === 'add') return [table.withNode({ id: ch.id, weight: ch.weight ?? 1 }), [...ids, ch.id]];
  if (ch.op === 'remove') return [table.withoutNode(ch.id), ids.filter((i) => i !== ch.id)];
  assert.equal(ch.op, 'weight');
  return [table.withWeight(ch.id, ch.weight), ids];
}

function check(table, ids, expected) {
  assert.equal(table.slots, expected.table.length);
  assert.deepEqual(table.assignments(), expected.table);
  const counts = ids.map(() => 0);
  for (const o of expected.table) counts[o]++;
  assert.deepEqual(table.slotCounts(), counts);
  for (let s = 0; s < table.slots; s++) assert.equal(table.ownerOfSlot(s), ids[expected.table[s]]);
  assert.throws(() => table.ownerOfSlot(table.slots), { code: 'HRW_SLOT_OUT_OF_RANGE', name: 'RangeError' });
}

test('the file is the policy this suite runs', () => {
  assert.equal(vectors.policy, 'slot-table-v2');
  assert.equal(LEVELLED_SLOTS_POLICY, 'slot-table-v2');
  assert.ok(vectors.cases.length >= 10 && vectors.error_cases.length >= 5);
});

const finals = new Map();
for (const c of vectors.cases) {
  test(`case: ${c.name}`, () => {
    let ids = c.nodes.map((n) => n.id);
    let table = new LevelledSlotTable(placementOf(c), c.slots);
    check(table, ids, c.expected);
    for (const k of c.expected.keys) {
      assert.equal(table.slot(k.key), k.slot);
      assert.equal(table.slot(Buffer.from(k.key, 'utf8')), k.slot);
      assert.equal(table.owner(k.key), ids[k.owner]);
    }
    let before = c.expected;
    for (const ch of c.changes ?? []) {
      const [next, nextIds] = apply(table, ids, ch);
      check(next, nextIds, ch.expected);
      // A change leaves the table it came from as it was ...
      assert.deepEqual(table.assignments(), before.table);
      // ... and moves only slots to or from the changed node.
      const was = table.assignments(), is = next.assignments();
      for (let s = 0; s < was.length; s++) {
        const from = ids[was[s]], to = nextIds[is[s]];
        assert.ok(from === to || from === ch.id || to === ch.id, `slot ${s}: ${from} -> ${to}`);
      }
      [table, ids, before] = [next, nextIds, ch.expected];
    }
    finals.set(c.name, table.assignments());
  });
}

test('the same changes in another order give another table', () => {
  assert.ok(finals.has('order-a') && finals.has('order-b'));
  assert.notDeepEqual(finals.get('order-a'), finals.get('order-b'));
});

const codes = {
  InvalidSlotCount: 'HRW_INVALID_SLOT_COUNT',
  SlotOutOfRange: 'HRW_SLOT_OUT_OF_RANGE',
  UnknownNode: 'HRW_UNKNOWN_NODE',
  DuplicateNodeId: 'HRW_DUPLICATE_NODE_ID',
  EmptyMembership: 'HRW_EMPTY_MEMBERSHIP',
  AllWeightsZero: 'HRW_ALL_WEIGHTS_ZERO',
};

for (const c of vectors.error_cases) {
  test(`error: ${c.name}`, () => {
    const code = codes[c.error];
    assert.ok(code, c.error);
    const p = placementOf(c);
    const slots = Number(c.slots);
    if (c.slot === undefined && c.changes === undefined) {
      // Beyond 2^53 a JS number is no longer an exact count.
      const want = Number.isSafeInteger(slots) ? code : 'HRW_INVALID_COUNT';
      assert.throws(() => new LevelledSlotTable(p, slots), { code: want });
      return;
    }
    let table = new LevelledSlotTable(p, slots);
    if (c.slot !== undefined) {
      const slot = Number(c.slot);
      const want = Number.isSafeInteger(slot) ? code : 'HRW_INVALID_COUNT';
      assert.throws(() => table.ownerOfSlot(slot), { code: want });
      return;
    }
    let ids = c.nodes.map((n) => n.id);
    for (const ch of c.changes.slice(0, -1)) [table, ids] = apply(table, ids, ch);
    assert.throws(() => apply(table, ids, c.changes.at(-1)), { code });
  });
}

test('a table of a View is the table of its placement', () => {
  const view = new View(new Placement(['a', 'b', 'c']), 7);
  assert.deepEqual(new LevelledSlotTable(view, 64).assignments(), new LevelledSlotTable(view.placement, 64).assignments());
});

test('binary ids come back as Buffers, through changes too', () => {
  const t = new LevelledSlotTable(new Placement([Buffer.from([0xff]), 'b']), 16).withNode(Buffer.from([0xfe]));
  const owners = new Set([...Array(100).keys()].map((i) => {
    const o = t.owner(`k${i}`);
    return Buffer.isBuffer(o) ? `buffer:${o.toString('hex')}` : `string:${o}`;
  }));
  for (const o of owners) assert.ok(['buffer:ff', 'string:b', 'buffer:fe'].includes(o), o);
  assert.ok(owners.size > 1);
  assert.equal(t.slotCounts().reduce((a, b) => a + b, 0), 16);
  assert.equal(t.withoutNode(Buffer.from([0xff])).slotCounts().length, 2);
});

const bad = [
  ['slots negative', (p) => new LevelledSlotTable(p, -1), { code: 'HRW_INVALID_COUNT' }],
  ['slots fractional', (p) => new LevelledSlotTable(p, 1.5), { code: 'HRW_INVALID_COUNT' }],
  ['slots NaN', (p) => new LevelledSlotTable(p, NaN), { code: 'HRW_INVALID_COUNT' }],
  ['slots zero', (p) => new LevelledSlotTable(p, 0), { code: 'HRW_INVALID_SLOT_COUNT', name: 'RangeError' }],
  ['slots above 2^24', (p) => new LevelledSlotTable(p, 2 ** 24 + 1), { code: 'HRW_INVALID_SLOT_COUNT' }],
  ['slots a string', (p) => new LevelledSlotTable(p, '8'), { name: 'TypeError' }],
  ['slots missing', (p) => new LevelledSlotTable(p), { name: 'TypeError' }],
  ['not a placement', () => new LevelledSlotTable(['a'], 8), { name: 'TypeError' }],
  ['slot negative', (p) => new LevelledSlotTable(p, 8).ownerOfSlot(-1), { code: 'HRW_INVALID_COUNT' }],
  ['slot 8 of 8', (p) => new LevelledSlotTable(p, 8).ownerOfSlot(8), { code: 'HRW_SLOT_OUT_OF_RANGE' }],
  ['slot null', (p) => new LevelledSlotTable(p, 8).ownerOfSlot(null), { name: 'TypeError' }],
  ['key null', (p) => new LevelledSlotTable(p, 8).slot(null), { name: 'TypeError' }],
  ['key a number', (p) => new LevelledSlotTable(p, 8).owner(5), { name: 'TypeError' }],
  ['key lone surrogate', (p) => new LevelledSlotTable(p, 8).owner('\ud800'), { code: 'HRW_INVALID_TEXT' }],
  ['remove unknown', (p) => new LevelledSlotTable(p, 8).withoutNode('zz'), { code: 'HRW_UNKNOWN_NODE' }],
  ['remove null', (p) => new LevelledSlotTable(p, 8).withoutNode(null), { name: 'TypeError' }],
  ['weight unknown', (p) => new LevelledSlotTable(p, 8).withWeight('zz', 1), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight negative', (p) => new LevelledSlotTable(p, 8).withWeight('a', -1), { code: 'HRW_INVALID_WEIGHT' }],
  ['weight infinite', (p) => new LevelledSlotTable(p, 8).withWeight('a', Infinity), { code: 'HRW_INVALID_WEIGHT' }],
  ['weight a string', (p) => new LevelledSlotTable(p, 8).withWeight('a', '2'), { name: 'TypeError' }],
  ['add duplicate', (p) => new LevelledSlotTable(p, 8).withNode('a'), { code: 'HRW_DUPLICATE_NODE_ID' }],
  ['add empty id', (p) => new LevelledSlotTable(p, 8).withNode(''), { code: 'HRW_EMPTY_NODE_ID' }],
  ['add NaN weight', (p) => new LevelledSlotTable(p, 8).withNode({ id: 'c', weight: NaN }), { code: 'HRW_INVALID_WEIGHT' }],
  ['remove every node', (p) => new LevelledSlotTable(p, 8).withoutNode('a').withoutNode('b'), { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['drain every node', (p) => new LevelledSlotTable(p, 8).withWeight('a', 0).withWeight('b', 0), { code: 'HRW_ALL_WEIGHTS_ZERO' }],
];
for (const [name, call, error] of bad) {
  test(`bad input: ${name}`, () => {
    assert.throws(() => call(new Placement(['a', 'b'])), error);
  });
}
