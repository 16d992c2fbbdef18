// Every case of ../conformance/policies/slot-history-v1.json (SLOT-HISTORY.md) through the public
// API, appending changes, and the bad inputs of SlotHistory with the errors they throw.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { SlotHistory, SLOT_HISTORY_FORMAT, Placement, LevelledSlotTable, View } = require('hrwhash');

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
};

const documentOf = (c) => (c.document !== undefined ? c.document : Buffer.from(c.document_hex, 'hex'));
const options = (c) => (c.seed !== undefined ? { seed: Buffer.from(c.seed, 'hex') } : undefined);
const ownerOf = (o) => (o.owner !== undefined ? o.owner : Buffer.from(o.owner_hex, 'hex'));

test('the format tag', () => assert.equal(SLOT_HISTORY_FORMAT, vectors.format));

for (const c of vectors.valid) {
  test(`valid: ${c.name}`, () => {
    const h = SlotHistory.fromJson(documentOf(c), options(c));
    assert.equal(h.toJson(), c.canonical);
    assert.equal(h.tableFingerprint, c.table_fingerprint);
    assert.equal(h.changeCount, c.changes);
    const view = h.view();
    assert.ok(view instanceof View);
    assert.equal(view.fingerprint, c.view_fingerprint);
    assert.equal(view.toJson(), c.view);
    assert.equal(view.epoch, h.epoch);
    const table = h.table();
    assert.ok(table instanceof LevelledSlotTable);
    for (const o of c.owners) {
      assert.deepEqual(table.ownerOfSlot(o.slot), ownerOf(o));
      if (o.key !== undefined) {
        assert.equal(h.slot(o.key), o.slot);
        assert.deepEqual(h.owner(o.key), ownerOf(o));
        assert.deepEqual(table.owner(o.key), ownerOf(o));
      }
    }
    // The bytes of a text document load the same history.
    if (c.document !== undefined) {
      assert.equal(SlotHistory.fromJson(Buffer.from(c.document), options(c)).toJson(), h.toJson());
    }
  });
}

for (const c of vectors.same_membership) {
  test(`same membership, other order: ${c.name}`, () => {
    const a = SlotHistory.fromJson(c.a);
    const b = SlotHistory.fromJson(c.b);
    assert.equal(a.view().fingerprint, c.view_fingerprint);
    assert.equal(b.view().fingerprint, c.view_fingerprint);
    assert.equal(a.tableFingerprint, c.a_table_fingerprint);
    assert.equal(b.tableFingerprint, c.b_table_fingerprint);
    assert.notDeepEqual(a.table().assignments(), b.table().assignments());
  });
}

for (const c of vectors.equivalent) {
  test(`equivalent: ${c.name}`, () => {
    const h = SlotHistory.fromJson(c.document);
    assert.equal(h.toJson(), c.canonical);
    assert.equal(h.tableFingerprint, c.table_fingerprint);
  });
}

for (const c of vectors.invalid) {
  test(`invalid: ${c.name}`, () => {
    const want = { code: codes[c.error] };
    assert.ok(want.code, c.error);
    if (c.error === 'InvalidView') Object.assign(want, { field: c.field, index: c.index, reason: c.reason });
    if (c.error === 'EmptyNodeId' || c.error === 'DuplicateNodeId') want.index = c.index;
    if (c.error === 'DuplicateNodeId') want.firstIndex = c.first_index;
    assert.throws(() => SlotHistory.fromJson(documentOf(c), options(c)), (e) => {
      for (const [k, v] of Object.entries(want)) assert.deepEqual(e[k], v, `${c.name}: ${k}`);
      if (c.error === 'InvalidJson') assert.ok(e.line >= 1 && e.column >= 1);
      return true;
    });
  });
}

test('appending changes replays them in order', () => {
  const first = new SlotHistory(new Placement(['a', 'b', 'c']), 64, 5n);
  const h = first
    .withNode({ id: 'd', weight: 2, domain: 'zone-9' })
    .withoutNode('a')
    .withWeight('c', 0.5);
  assert.equal(SlotHistory.fromJson(h.toJson()).tableFingerprint, h.tableFingerprint);
  assert.equal(h.epoch, 5n);
  assert.equal(h.slots, 64);
  assert.equal(h.changeCount, 3);
  assert.equal(first.changeCount, 0);
  assert.equal(h.withEpoch(6).epoch, 6n);
  const other = first.withoutNode('a').withNode({ id: 'd', weight: 2, domain: 'zone-9' }).withWeight('c', 0.5);
  assert.equal(other.view().fingerprint, h.view().fingerprint);
  assert.equal(new SlotHistory(new Placement(['a']), 8).epoch, 0n);
});

const bad = [
  ['remove unknown', (h) => h.withoutNode('zz'), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight unknown', (h) => h.withWeight('zz', 1), { code: 'HRW_UNKNOWN_NODE' }],
  ['add duplicate', (h) => h.withNode('b'), { code: 'HRW_DUPLICATE_NODE_ID', index: 0, firstIndex: 1 }],
  ['add empty id', (h) => h.withNode(''), { code: 'HRW_EMPTY_NODE_ID', index: 0 }],
  ['weight negative', (h) => h.withWeight('a', -1), { code: 'HRW_INVALID_WEIGHT' }],
  ['add weight NaN', (h) => h.withNode({ id: 'd', weight: NaN }), { code: 'HRW_INVALID_WEIGHT' }],
  ['drain all', (h) => h.withWeight('a', 0).withWeight('b', 0), { code: 'HRW_ALL_WEIGHTS_ZERO' }],
  ['remove all', (h) => h.withoutNode('a').withoutNode('b'), { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['weight a string', (h) => h.withWeight('a', '2'), { name: 'TypeError' }],
  ['remove null', (h) => h.withoutNode(null), { name: 'TypeError' }],
  ['add a number', (h) => h.withNode(5), { name: 'TypeError' }],
  ['key null', (h) => h.owner(null), { name: 'TypeError' }],
  ['key lone surrogate', (h) => h.slot('\ud800'), { code: 'HRW_INVALID_TEXT' }],
  ['epoch negative', (h) => h.withEpoch(-1), { code: 'HRW_INVALID_COUNT' }],
  ['epoch above 2^64', (h) => h.withEpoch(2n ** 64n), { code: 'HRW_INVALID_COUNT' }],
  ['not a placement', () => new SlotHistory(['a'], 8), { name: 'TypeError' }],
  ['slots zero', () => new SlotHistory(new Placement(['a']), 0), { code: 'HRW_INVALID_SLOT_COUNT' }],
  ['slots fractional', () => new SlotHistory(new Placement(['a']), 1.5), { code: 'HRW_INVALID_COUNT' }],
  ['document a number', () => SlotHistory.fromJson(5), { name: 'TypeError' }],
  ['unknown load option', () => SlotHistory.fromJson('{}', { sead: 1 }), { name: 'TypeError' }],
  ['seed too short', () => SlotHistory.fromJson('{}', { seed: Buffer.alloc(3) }), { code: 'HRW_INVALID_SEED_LENGTH' }],
];

for (const [name, call, want] of bad) {
  test(`bad input: ${name}`, () => {
    const h = new SlotHistory(new Placement(['a', 'b']), 8);
    assert.throws(() => call(h), want);
    assert.equal(h.changeCount, 0);
  });
}

// API.md: the same bad input gets the same error in every API. An unknown node with an invalid
// weight is HRW_UNKNOWN_NODE for Placement, LevelledSlotTable and SlotHistory alike (types first,
// then the node, then the weight's value); a known node's invalid weight stays HRW_INVALID_WEIGHT.
for (const weight of [NaN, -1]) {
  test(`withWeight looks the node up before the weight (${weight})`, () => {
    const p = new Placement(['a', 'b', 'c']);
    const h = new SlotHistory(p, 8);
    const calls = {
      Placement: (id, w) => p.withWeight(id, w),
      LevelledSlotTable: (id, w) => new LevelledSlotTable(p, 8).withWeight(id, w),
      SlotHistory: (id, w) => h.withWeight(id, w),
    };
    for (const [api, withWeight] of Object.entries(calls)) {
      assert.throws(() => withWeight('zz', weight), { code: 'HRW_UNKNOWN_NODE' }, api);
      assert.throws(() => withWeight('b', weight), { code: 'HRW_INVALID_WEIGHT' }, api);
      assert.throws(() => withWeight('zz', '2'), { name: 'TypeError' }, api);
    }
    // The history's current membership: a node it removed is unknown, one it added is known.
    const later = h.withoutNode('a').withNode('d');
    assert.throws(() => later.withWeight('a', weight), { code: 'HRW_UNKNOWN_NODE' });
    assert.throws(() => later.withWeight('d', weight), { code: 'HRW_INVALID_WEIGHT' });
    assert.equal(h.changeCount, 0);
  });
}
