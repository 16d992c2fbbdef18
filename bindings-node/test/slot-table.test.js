// Every case of ../conformance/policies/slot-table.json (POLICIES.md, "slot-table (v1)") through
// the public API, and every bad input of SlotTable with the error it throws.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Placement, SlotTable, View } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'slot-table.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));

const placementOf = (c, nodes) =>
  new Placement(
    nodes.map((n) => ({ id: n.id, weight: n.weight ?? 1 })),
    c.seed !== undefined ? { seed: c.seed } : undefined,
  );

const options = (c) => ({ overloadPpm: c.overload_ppm });

function check(table, ids, expected) {
  assert.deepEqual(table.capacities(), expected.capacities);
  assert.deepEqual(table.assignments(), expected.table);
  for (let s = 0; s < table.slots; s += Math.max(1, table.slots >> 4)) {
    assert.equal(table.ownerOfSlot(s), ids[expected.table[s]]);
  }
}

test('the file is the policy this suite runs', () => {
  assert.equal(vectors.policy, 'slot-table-v1');
  assert.ok(vectors.cases.length >= 10 && vectors.error_cases.length >= 5);
});

for (const c of vectors.cases) {
  test(`case: ${c.name}`, () => {
    let ids = c.nodes.map((n) => n.id);
    let table = new SlotTable(placementOf(c, c.nodes), c.slots, options(c));
    assert.equal(table.slots, c.slots);
    assert.equal(table.overloadPpm, c.overload_ppm);
    check(table, ids, c.expected);
    for (const k of c.expected.keys) {
      assert.equal(table.slot(k.key), k.slot);
      assert.equal(table.slot(Buffer.from(k.key, 'utf8')), k.slot);
      assert.equal(table.owner(k.key), ids[k.owner]);
    }
    for (const ch of c.changes ?? []) {
      if (ch.op === 'add') {
        table = table.withNode({ id: ch.id, weight: ch.weight ?? 1 });
        ids = [...ids, ch.id];
      } else if (ch.op === 'remove') {
        table = table.withoutNode(ch.id);
        ids = ids.filter((i) => i !== ch.id);
      } else {
        table = table.withWeight(ch.id, ch.weight);
      }
      check(table, ids, ch.expected);
    }
  });
}

for (const c of vectors.error_cases) {
  test(`error: ${c.name}`, () => {
    const p = placementOf(c, c.nodes);
    const slots = Number(c.slots);
    if (c.slot === undefined) {
      if (Number.isSafeInteger(slots)) {
        assert.throws(() => new SlotTable(p, slots, options(c)), { code: 'HRW_INVALID_SLOT_COUNT', name: 'RangeError' });
      } else {
        // Beyond 2^53 a JS number is no longer an exact count.
        assert.throws(() => new SlotTable(p, slots, options(c)), { code: 'HRW_INVALID_COUNT' });
      }
      return;
    }
    const table = new SlotTable(p, slots, options(c));
    const slot = Number(c.slot);
    const code = Number.isSafeInteger(slot) ? 'HRW_SLOT_OUT_OF_RANGE' : 'HRW_INVALID_COUNT';
    assert.throws(() => table.ownerOfSlot(slot), { code });
  });
}

test('a table of a View is the table of its placement', () => {
  const view = new View(new Placement(['a', 'b', 'c']), 7);
  assert.deepEqual(new SlotTable(view, 64).assignments(), new SlotTable(view.placement, 64).assignments());
});

test('binary ids come back as Buffers, through changes too', () => {
  const t = new SlotTable(new Placement([Buffer.from([0xff]), 'b']), 16, { overloadPpm: 0 }).withNode(Buffer.from([0xfe]));
  // A Buffer id comes back as a Buffer, a string id as the string.
  const owners = new Set([...Array(100).keys()].map((i) => {
    const o = t.owner(`k${i}`);
    return Buffer.isBuffer(o) ? `buffer:${o.toString('hex')}` : `string:${o}`;
  }));
  for (const o of owners) assert.ok(['buffer:ff', 'string:b', 'buffer:fe'].includes(o), o);
  assert.ok(owners.size > 1);
  assert.equal(t.slotCounts().reduce((a, b) => a + b, 0), 16);
  assert.deepEqual(t.assignments(), new SlotTable(new Placement([Buffer.from([0xff]), 'b', Buffer.from([0xfe])]), 16, { overloadPpm: 0 }).assignments());
});

const bad = [
  ['slots negative', (p) => new SlotTable(p, -1), { code: 'HRW_INVALID_COUNT' }],
  ['slots fractional', (p) => new SlotTable(p, 1.5), { code: 'HRW_INVALID_COUNT' }],
  ['slots zero', (p) => new SlotTable(p, 0), { code: 'HRW_INVALID_SLOT_COUNT' }],
  ['slots above 2^24', (p) => new SlotTable(p, 2 ** 24 + 1), { code: 'HRW_INVALID_SLOT_COUNT' }],
  ['slots a string', (p) => new SlotTable(p, '8'), { name: 'TypeError' }],
  ['not a placement', () => new SlotTable(['a'], 8), { name: 'TypeError' }],
  ['overload negative', (p) => new SlotTable(p, 8, { overloadPpm: -1 }), { code: 'HRW_INVALID_COUNT' }],
  ['overload 2^32', (p) => new SlotTable(p, 8, { overloadPpm: 2 ** 32 }), { code: 'HRW_INVALID_COUNT' }],
  ['overload a string', (p) => new SlotTable(p, 8, { overloadPpm: '5%' }), { name: 'TypeError' }],
  ['unknown option', (p) => new SlotTable(p, 8, { colour: 1 }), { name: 'TypeError' }],
  ['options not an object', (p) => new SlotTable(p, 8, 5), { name: 'TypeError' }],
  ['slot negative', (p) => new SlotTable(p, 8).ownerOfSlot(-1), { code: 'HRW_INVALID_COUNT' }],
  ['slot 8 of 8', (p) => new SlotTable(p, 8).ownerOfSlot(8), { code: 'HRW_SLOT_OUT_OF_RANGE' }],
  ['slot null', (p) => new SlotTable(p, 8).ownerOfSlot(null), { name: 'TypeError' }],
  ['key null', (p) => new SlotTable(p, 8).slot(null), { name: 'TypeError' }],
  ['key lone surrogate', (p) => new SlotTable(p, 8).owner('\ud800'), { code: 'HRW_INVALID_TEXT' }],
  ['remove unknown', (p) => new SlotTable(p, 8).withoutNode('zz'), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight unknown', (p) => new SlotTable(p, 8).withWeight('zz', 1), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight negative', (p) => new SlotTable(p, 8).withWeight('a', -1), { code: 'HRW_INVALID_WEIGHT' }],
  ['add duplicate', (p) => new SlotTable(p, 8).withNode('a'), { code: 'HRW_DUPLICATE_NODE_ID' }],
  ['add empty id', (p) => new SlotTable(p, 8).withNode(''), { code: 'HRW_EMPTY_NODE_ID' }],
  ['remove every node', (p) => new SlotTable(p, 8).withoutNode('a').withoutNode('b'), { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['drain every node', (p) => new SlotTable(p, 8).withWeight('a', 0).withWeight('b', 0), { code: 'HRW_ALL_WEIGHTS_ZERO' }],
];
for (const [name, call, error] of bad) {
  test(`bad input: ${name}`, () => {
    assert.throws(() => call(new Placement(['a', 'b'])), error);
  });
}
