// Every case of ../conformance/policies/slot-history-v1.json (SLOT-HISTORY.md): a SlotTable's
// document, loaded, written back and compared by fingerprint, in both modes; and the bad inputs
// of SlotTable.fromJson with the errors they throw.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { SlotTable, SLOT_HISTORY_FORMAT, SLOT_TABLE_POLICY, RANKED_SLOT_TABLE_POLICY, Placement, View } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'slot-history-v1.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));

const codes = {
  InvalidJson: 'HRW_INVALID_JSON',
  InvalidView: 'HRW_INVALID_VIEW',
  InvalidSlotCount: 'HRW_INVALID_SLOT_COUNT',
  SeedMismatch: 'HRW_SEED_MISMATCH',
  EmptyMembership: 'HRW_EMPTY_MEMBERSHIP',
  EmptyNodeId: 'HRW_EMPTY_NODE_ID',
  DuplicateNodeId: 'HRW_DUPLICATE_NODE_ID',
  AllWeightsZero: 'HRW_ALL_WEIGHTS_ZERO',
  UnknownNode: 'HRW_UNKNOWN_NODE',
  ResultTooLarge: 'HRW_RESULT_TOO_LARGE',
};

const documentOf = (c) => (c.document !== undefined ? c.document : Buffer.from(c.document_hex, 'hex'));
const options = (c) => (c.seed !== undefined ? { seed: Buffer.from(c.seed, 'hex') } : undefined);
const ownerOf = (o) => (o.owner !== undefined ? o.owner : Buffer.from(o.owner_hex, 'hex'));
// The owner of every slot, by id (a loaded table has its nodes in the document's order).
const owners = (table) => Array.from({ length: table.slots }, (_, s) => table.ownerOfSlot(s));
// Per-node values keyed by id.
const byId = (table, values) =>
  values === null ? null : new Map(table.placement.nodes().map((n, i) => [String(n.id), values[i]]));

const modes = { [SLOT_TABLE_POLICY]: 'levelled', [RANKED_SLOT_TABLE_POLICY]: 'ranked' };

test('the format tag', () => assert.equal(SLOT_HISTORY_FORMAT, vectors.format));

const seen = new Set();
for (const c of vectors.valid) {
  test(`valid: ${c.name}`, () => {
    const t = SlotTable.fromJson(documentOf(c), options(c));
    assert.equal(t.toJson(), c.canonical);
    assert.equal(t.fingerprint, c.table_fingerprint);
    assert.equal(t.changeCount, c.changes);
    // The mode and bound are those the canonical document states.
    const doc = JSON.parse(c.canonical);
    assert.equal(t.mode, modes[doc.policy]);
    assert.equal(t.overloadPpm, doc.overload_ppm ?? null);
    seen.add(t.mode);
    assert.equal(t.slots, doc.slots);
    assert.equal(t.epoch, BigInt(doc.epoch));
    const view = t.view();
    assert.ok(view instanceof View);
    assert.equal(view.fingerprint, c.view_fingerprint);
    assert.equal(view.toJson(), c.view);
    assert.equal(view.epoch, t.epoch);
    assert.equal(t.initial.length, doc.initial.length);
    for (const o of c.owners) {
      assert.deepEqual(t.ownerOfSlot(o.slot), ownerOf(o));
      if (o.key !== undefined) {
        assert.equal(t.slot(o.key), o.slot);
        assert.deepEqual(t.owner(o.key), ownerOf(o));
      }
    }
    // The bytes of a text document load the same table.
    if (c.document !== undefined) {
      assert.equal(SlotTable.fromJson(Buffer.from(c.document), options(c)).toJson(), t.toJson());
    }
    // A ranked table is that of its final membership.
    if (t.mode === 'ranked') {
      const fresh = new SlotTable(t.placement, t.slots, { mode: 'ranked', overloadPpm: t.overloadPpm });
      assert.deepEqual(owners(fresh), owners(t));
      assert.equal(fresh.fingerprint, t.fingerprint);
    }
  });
}

test('the valid cases cover both modes', () => {
  assert.deepEqual([...seen].sort(), ['levelled', 'ranked']);
});

for (const c of vectors.same_membership) {
  test(`same membership, other order: ${c.name}`, () => {
    const a = SlotTable.fromJson(c.a);
    const b = SlotTable.fromJson(c.b);
    assert.equal(a.view().fingerprint, c.view_fingerprint);
    assert.equal(b.view().fingerprint, c.view_fingerprint);
    assert.equal(a.fingerprint, c.a_table_fingerprint);
    assert.equal(b.fingerprint, c.b_table_fingerprint);
    // Levelled tables depend on the order of the changes; ranked ones only on the membership.
    if (c.a_table_fingerprint === c.b_table_fingerprint) {
      assert.deepEqual(owners(a), owners(b));
    } else {
      assert.notDeepEqual(owners(a), owners(b));
    }
  });
}

for (const c of vectors.equivalent) {
  test(`equivalent: ${c.name}`, () => {
    const t = SlotTable.fromJson(c.document);
    assert.equal(t.toJson(), c.canonical);
    assert.equal(t.fingerprint, c.table_fingerprint);
  });
}

for (const c of vectors.invalid) {
  test(`invalid: ${c.name}`, () => {
    const want = { code: codes[c.error] };
    assert.ok(want.code, c.error);
    if (c.error === 'InvalidView') Object.assign(want, { field: c.field, index: c.index, reason: c.reason });
    if (c.error === 'EmptyNodeId' || c.error === 'DuplicateNodeId') want.index = c.index;
    if (c.error === 'DuplicateNodeId') want.firstIndex = c.first_index;
    assert.throws(() => SlotTable.fromJson(documentOf(c), options(c)), (e) => {
      for (const [k, v] of Object.entries(want)) assert.deepEqual(e[k], v, `${c.name}: ${k}`);
      if (c.error === 'InvalidJson') assert.ok(e.line >= 1 && e.column >= 1);
      return true;
    });
  });
}

test('a table written and loaded is the same table, in both modes', () => {
  for (const options of [{}, { mode: 'ranked' }, { mode: 'ranked', overloadPpm: 25_000 }]) {
    const first = new SlotTable(new Placement(['a', 'b', 'c']), 64, { ...options, epoch: 5n });
    const t = first
      .withNode({ id: 'd', weight: 2, domain: 'zone-9' })
      .withoutNode('a')
      .withWeight('c', 0.5);
    const loaded = SlotTable.fromJson(t.toJson());
    assert.equal(loaded.fingerprint, t.fingerprint);
    assert.equal(loaded.toJson(), t.toJson());
    assert.equal(loaded.mode, t.mode);
    assert.equal(loaded.overloadPpm, t.overloadPpm);
    assert.deepEqual(byId(loaded, loaded.capacities()), byId(t, t.capacities()));
    assert.deepEqual(owners(loaded), owners(t));
    assert.equal(t.epoch, 5n);
    assert.equal(t.slots, 64);
    assert.equal(t.changeCount, 3);
    assert.equal(first.changeCount, 0);
    assert.equal(t.withEpoch(6).epoch, 6n);
    assert.notEqual(t.withEpoch(6).toJson(), t.toJson());
    const other = first.withoutNode('a').withNode({ id: 'd', weight: 2, domain: 'zone-9' }).withWeight('c', 0.5);
    assert.equal(other.view().fingerprint, t.view().fingerprint);
    if (t.mode === 'ranked') assert.equal(other.fingerprint, t.fingerprint);
    else assert.notEqual(other.fingerprint, t.fingerprint);
  }
});

test('a loaded table changes in place and writes its new changes', () => {
  const t = SlotTable.fromJson(new SlotTable(new Placement(['a', 'b']), 16).toJson());
  t.addNode('c');
  t.setWeight('a', 3);
  assert.equal(t.changeCount, 2);
  assert.equal(SlotTable.fromJson(t.toJson()).fingerprint, t.fingerprint);
  assert.equal(t.owner('k'), SlotTable.fromJson(t.toJson()).owner('k'));
});

const bad = [
  ['document a number', () => SlotTable.fromJson(5), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['document missing', () => SlotTable.fromJson(), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['document a lone surrogate', () => SlotTable.fromJson('\ud800'), { code: 'HRW_INVALID_TEXT' }],
  ['document not JSON', () => SlotTable.fromJson('{'), { code: 'HRW_INVALID_JSON' }],
  ['document not a table', () => SlotTable.fromJson('{}'), { code: 'HRW_INVALID_VIEW' }],
  ['unknown load option', () => SlotTable.fromJson('{}', { sead: 1 }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['load options not an object', () => SlotTable.fromJson('{}', 'seed'), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['seed too short', () => SlotTable.fromJson('{}', { seed: Buffer.alloc(3) }), { code: 'HRW_INVALID_SEED_LENGTH' }],
  ['seed not hex', () => SlotTable.fromJson('{}', { seed: 'xyz' }), { code: 'ERR_INVALID_ARG_TYPE' }],
];
for (const [name, call, want] of bad) {
  test(`bad input: ${name}`, () => {
    assert.throws(call, want);
  });
}

test('a document with too many changes is HRW_INVALID_VIEW, and so is one more change', () => {
  const t = new SlotTable(new Placement(['a', 'b']), 4);
  const doc = JSON.parse(t.toJson());
  doc.changes = [];
  for (let i = 0; i < vectors.max_changes; i++) doc.changes.push({ op: 'weight', id: 'a', weight: (i % 3) + 1 });
  const full = SlotTable.fromJson(JSON.stringify(doc));
  assert.equal(full.changeCount, vectors.max_changes);
  const fingerprint = full.fingerprint;
  const tooMany = { code: 'HRW_INVALID_VIEW', field: 'changes', index: vectors.max_changes, reason: 'out_of_range' };
  assert.throws(() => full.setWeight('a', 1), tooMany);
  assert.throws(() => full.withNode('c'), tooMany);
  assert.equal(full.fingerprint, fingerprint);
  assert.equal(full.changeCount, vectors.max_changes);
  doc.changes.push({ op: 'weight', id: 'a', weight: 1 });
  assert.throws(() => SlotTable.fromJson(JSON.stringify(doc)), tooMany);
});
