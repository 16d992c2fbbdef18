// Every case of ../conformance/policies/slot-table-v2.json (POLICIES.md, "slot-table-v2") through
// a levelled SlotTable: first tables, change sequences in their order (as copies and in place),
// and error cases.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Placement, SlotTable, SLOT_TABLE_POLICY } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'slot-table-v2.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));

const placementOf = (c) =>
  new Placement(
    c.nodes.map((n) => ({ id: n.id, weight: n.weight ?? 1 })),
    c.seed !== undefined ? { seed: c.seed } : undefined,
  );

function copy(table, ids, ch) {
  if (ch.op === 'add') return [table.withNode({ id: ch.id, weight: ch.weight ?? 1 }), [...ids, ch.id]];
  if (ch.op === 'remove') return [table.withoutNode(ch.id), ids.filter((i) => i !== ch.id)];
  assert.equal(ch.op, 'weight');
  return [table.withWeight(ch.id, ch.weight), ids];
}

function inPlace(table, ch) {
  if (ch.op === 'add') table.addNode({ id: ch.id, weight: ch.weight ?? 1 });
  else if (ch.op === 'remove') table.removeNode(ch.id);
  else table.setWeight(ch.id, ch.weight);
}

// The owner of every slot, by id.
const owners = (table) => Array.from({ length: table.slots }, (_, s) => table.ownerOfSlot(s));

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
  assert.equal(SLOT_TABLE_POLICY, 'slot-table-v2');
  assert.ok(vectors.cases.length >= 10 && vectors.error_cases.length >= 5);
});

const finals = new Map();
for (const c of vectors.cases) {
  test(`case: ${c.name}`, () => {
    let ids = c.nodes.map((n) => n.id);
    let table = new SlotTable(placementOf(c), c.slots);
    const changing = new SlotTable(placementOf(c), c.slots, { mode: 'levelled' });
    assert.equal(table.mode, 'levelled');
    assert.equal(table.overloadPpm, null);
    check(table, ids, c.expected);
    for (const k of c.expected.keys) {
      assert.equal(table.slot(k.key), k.slot);
      assert.equal(table.slot(Buffer.from(k.key, 'utf8')), k.slot);
      assert.equal(table.owner(k.key), ids[k.owner]);
    }
    let before = c.expected;
    for (const ch of c.changes ?? []) {
      const [next, nextIds] = copy(table, ids, ch);
      check(next, nextIds, ch.expected);
      inPlace(changing, ch);
      check(changing, nextIds, ch.expected);
      // A copy leaves the table it came from as it was ...
      assert.deepEqual(table.assignments(), before.table);
      // ... and moves only slots to or from the changed node.
      const was = table.assignments(), is = next.assignments();
      for (let s = 0; s < was.length; s++) {
        const from = ids[was[s]], to = nextIds[is[s]];
        assert.ok(from === to || from === ch.id || to === ch.id, `slot ${s}: ${from} -> ${to}`);
      }
      [table, ids, before] = [next, nextIds, ch.expected];
    }
    assert.equal(changing.changeCount, (c.changes ?? []).length);
    assert.equal(changing.fingerprint, table.fingerprint);
    // The document carries the changes in their order: a loaded copy is the same table (its
    // nodes in the document's order, so compared by id).
    const loaded = SlotTable.fromJson(table.toJson(), c.seed !== undefined ? { seed: c.seed } : undefined);
    assert.deepEqual(owners(loaded), owners(table));
    assert.equal(loaded.fingerprint, table.fingerprint);
    finals.set(c.name, table);
  });
}

test('the same changes in another order give another table', () => {
  assert.ok(finals.has('order-a') && finals.has('order-b'));
  const [a, b] = [finals.get('order-a'), finals.get('order-b')];
  assert.notDeepEqual(owners(a), owners(b));
  assert.notEqual(a.fingerprint, b.fingerprint);
  assert.equal(a.view().fingerprint, b.view().fingerprint);
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
      assert.throws(() => new SlotTable(p, slots), { code: want });
      return;
    }
    let table = new SlotTable(p, slots);
    if (c.slot !== undefined) {
      const slot = Number(c.slot);
      const want = Number.isSafeInteger(slot) ? code : 'HRW_INVALID_COUNT';
      assert.throws(() => table.ownerOfSlot(slot), { code: want });
      return;
    }
    let ids = c.nodes.map((n) => n.id);
    for (const ch of c.changes.slice(0, -1)) [table, ids] = copy(table, ids, ch);
    assert.throws(() => copy(table, ids, c.changes.at(-1)), { code });
    const fingerprint = table.fingerprint;
    assert.throws(() => inPlace(table, c.changes.at(-1)), { code });
    assert.equal(table.fingerprint, fingerprint);
  });
}
