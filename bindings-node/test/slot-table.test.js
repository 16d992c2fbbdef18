// Every case of ../conformance/policies/slot-table.json (POLICIES.md, "slot-table (v1)") through
// a ranked SlotTable, and every bad input of SlotTable's constructor, queries and changes with the
// error it throws.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Placement, SlotTable, View, SLOT_TABLE_POLICY, RANKED_SLOT_TABLE_POLICY } = require('hrwhash');

const file = path.join(__dirname, '..', '..', 'conformance', 'policies', 'slot-table.json');
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));

const placementOf = (c, nodes) =>
  new Placement(
    nodes.map((n) => ({ id: n.id, weight: n.weight ?? 1 })),
    c.seed !== undefined ? { seed: c.seed } : undefined,
  );

const ranked = (c) => ({ mode: 'ranked', overloadPpm: c.overload_ppm });

function check(table, ids, expected, bounded) {
  assert.deepEqual(table.capacities(), bounded ? expected.capacities : null);
  assert.deepEqual(table.assignments(), expected.table);
  const counts = ids.map(() => 0);
  for (const o of expected.table) counts[o]++;
  assert.deepEqual(table.slotCounts(), counts);
  for (let s = 0; s < table.slots; s += Math.max(1, table.slots >> 4)) {
    assert.equal(table.ownerOfSlot(s), ids[expected.table[s]]);
  }
}

// The change `ch` of a vectors file, as a copy (`withNode`, ...) and in place (`addNode`, ...).
function copy(table, ch) {
  if (ch.op === 'add') return table.withNode({ id: ch.id, weight: ch.weight ?? 1 });
  if (ch.op === 'remove') return table.withoutNode(ch.id);
  assert.equal(ch.op, 'weight');
  return table.withWeight(ch.id, ch.weight);
}
function inPlace(table, ch) {
  let r;
  if (ch.op === 'add') r = table.addNode({ id: ch.id, weight: ch.weight ?? 1 });
  else if (ch.op === 'remove') r = table.removeNode(ch.id);
  else r = table.setWeight(ch.id, ch.weight);
  assert.equal(r, undefined);
}
const idsAfter = (ids, ch) =>
  ch.op === 'add' ? [...ids, ch.id] : ch.op === 'remove' ? ids.filter((i) => i !== ch.id) : ids;

test('the file is the policy this suite runs', () => {
  assert.equal(vectors.policy, 'slot-table-v1');
  assert.equal(RANKED_SLOT_TABLE_POLICY, 'slot-table-v1');
  assert.equal(SLOT_TABLE_POLICY, 'slot-table-v2');
  assert.ok(vectors.cases.length >= 10 && vectors.error_cases.length >= 5);
});

for (const c of vectors.cases) {
  test(`case: ${c.name}`, () => {
    const bounded = c.overload_ppm !== null && c.overload_ppm !== undefined;
    let ids = c.nodes.map((n) => n.id);
    let table = new SlotTable(placementOf(c, c.nodes), c.slots, ranked(c));
    const changing = new SlotTable(placementOf(c, c.nodes), c.slots, ranked(c));
    assert.equal(table.slots, c.slots);
    assert.equal(table.mode, 'ranked');
    assert.equal(table.overloadPpm, c.overload_ppm ?? null);
    check(table, ids, c.expected, bounded);
    for (const k of c.expected.keys) {
      assert.equal(table.slot(k.key), k.slot);
      assert.equal(table.slot(Buffer.from(k.key, 'utf8')), k.slot);
      assert.equal(table.owner(k.key), ids[k.owner]);
    }
    for (const ch of c.changes ?? []) {
      const next = copy(table, ch);
      inPlace(changing, ch);
      ids = idsAfter(ids, ch);
      check(next, ids, ch.expected, bounded);
      check(changing, ids, ch.expected, bounded);
      // A ranked table depends only on the membership: the table built from it is the same.
      const fresh = new SlotTable(next.placement, c.slots, ranked(c));
      assert.equal(fresh.fingerprint, next.fingerprint);
      table = next;
    }
    assert.equal(changing.changeCount, (c.changes ?? []).length);
    assert.equal(changing.fingerprint, table.fingerprint);
  });
}

for (const c of vectors.error_cases) {
  test(`error: ${c.name}`, () => {
    const p = placementOf(c, c.nodes);
    const slots = Number(c.slots);
    if (c.slot === undefined) {
      if (Number.isSafeInteger(slots)) {
        assert.throws(() => new SlotTable(p, slots, ranked(c)), { code: 'HRW_INVALID_SLOT_COUNT', name: 'RangeError' });
      } else {
        // Beyond 2^53 a JS number is no longer an exact count.
        assert.throws(() => new SlotTable(p, slots, ranked(c)), { code: 'HRW_INVALID_COUNT' });
      }
      return;
    }
    const table = new SlotTable(p, slots, ranked(c));
    const slot = Number(c.slot);
    const code = Number.isSafeInteger(slot) ? 'HRW_SLOT_OUT_OF_RANGE' : 'HRW_INVALID_COUNT';
    assert.throws(() => table.ownerOfSlot(slot), { code });
  });
}

test('the default is a levelled table at epoch 0 with no change', () => {
  const p = new Placement(['a', 'b', 'c']);
  const t = new SlotTable(p, 64);
  assert.equal(t.mode, 'levelled');
  assert.equal(t.overloadPpm, null);
  assert.equal(t.capacities(), null);
  assert.equal(t.epoch, 0n);
  assert.equal(t.changeCount, 0);
  for (const options of [undefined, null, {}, { mode: undefined, overloadPpm: null, epoch: null }, { mode: 'levelled' }]) {
    assert.equal(new SlotTable(p, 64, options).fingerprint, t.fingerprint);
  }
  // Each mode has its own table (and so its own fingerprint).
  const r = new SlotTable(p, 64, { mode: 'ranked' });
  assert.equal(r.mode, 'ranked');
  assert.equal(r.overloadPpm, null);
  assert.equal(r.capacities(), null);
  assert.notEqual(r.fingerprint, t.fingerprint);
  assert.notEqual(new SlotTable(p, 64, { mode: 'ranked', overloadPpm: 0 }).fingerprint, r.fingerprint);
  assert.equal(new SlotTable(p, 64, { epoch: 9n }).epoch, 9n);
  assert.equal(new SlotTable(p, 64, { epoch: 9 }).epoch, 9n);
});

test('a table of a View is the table of its placement', () => {
  const view = new View(new Placement(['a', 'b', 'c']), 7);
  for (const mode of ['levelled', 'ranked']) {
    assert.deepEqual(new SlotTable(view, 64, { mode }).assignments(), new SlotTable(view.placement, 64, { mode }).assignments());
  }
});

test('placement, initial and view: the current and the first membership', () => {
  const t = new SlotTable(new Placement(['a', Buffer.from([0xff]), 'c']), 32, { epoch: 4 });
  t.addNode({ id: Buffer.from([0xfe]), weight: 2, domain: 'zone-1' });
  t.removeNode('a');
  t.setWeight('c', 0.5);
  const now = t.placement;
  assert.ok(now instanceof Placement);
  assert.deepEqual(
    now.nodes().map((n) => [n.id, n.weight, n.domain]),
    [[Buffer.from([0xff]), 1, null], ['c', 0.5, null], [Buffer.from([0xfe]), 2, 'zone-1']],
  );
  assert.deepEqual(t.initial.nodes().map((n) => n.id), ['a', Buffer.from([0xff]), 'c']);
  const view = t.view();
  assert.ok(view instanceof View);
  assert.equal(view.epoch, 4n);
  assert.equal(view.fingerprint, new View(now, 4n).fingerprint);
  assert.equal(t.slotCounts().length, 3);
});

test('changes in place change the table; copies leave it as it was', () => {
  const p = new Placement(['a', 'b', 'c']);
  for (const mode of ['levelled', 'ranked']) {
    const t = new SlotTable(p, 64, { mode });
    const before = t.fingerprint;
    const copies = [t.withNode('d'), t.withoutNode('a'), t.withWeight('b', 3), t.withEpoch(5n)];
    assert.equal(t.fingerprint, before);
    assert.equal(t.changeCount, 0);
    assert.equal(t.epoch, 0n);
    assert.deepEqual(copies.map((c) => c.changeCount), [1, 1, 1, 0]);
    assert.equal(copies[3].epoch, 5n);
    assert.equal(copies[3].mode, mode);
    t.addNode('d');
    assert.equal(t.fingerprint, copies[0].fingerprint);
    assert.deepEqual(t.assignments(), copies[0].assignments());
    t.removeNode('a');
    t.setWeight('b', 3);
    assert.equal(t.changeCount, 3);
    assert.equal(t.fingerprint, copies[0].withoutNode('a').withWeight('b', 3).fingerprint);
    // An earlier copy is not changed by later changes in place.
    assert.equal(copies[0].changeCount, 1);
  }
});

test('binary ids come back as Buffers, through changes too', () => {
  for (const mode of ['levelled', 'ranked']) {
    const t = new SlotTable(new Placement([Buffer.from([0xff]), 'b']), 16, { mode }).withNode(Buffer.from([0xfe]));
    // A Buffer id comes back as a Buffer, a string id as the string.
    const owners = new Set([...Array(100).keys()].map((i) => {
      const o = t.owner(`k${i}`);
      return Buffer.isBuffer(o) ? `buffer:${o.toString('hex')}` : `string:${o}`;
    }));
    for (const o of owners) assert.ok(['buffer:ff', 'string:b', 'buffer:fe'].includes(o), o);
    assert.ok(owners.size > 1);
    assert.equal(t.slotCounts().reduce((a, b) => a + b, 0), 16);
    t.removeNode(Buffer.from([0xff]));
    assert.equal(t.slotCounts().length, 2);
    for (let s = 0; s < 16; s++) assert.ok(['b', 'fe'].includes(Buffer.isBuffer(t.ownerOfSlot(s)) ? t.ownerOfSlot(s).toString('hex') : t.ownerOfSlot(s)));
  }
  const r = new SlotTable(new Placement([Buffer.from([0xff]), 'b']), 16, { mode: 'ranked', overloadPpm: 0 }).withNode(Buffer.from([0xfe]));
  assert.deepEqual(r.assignments(), new SlotTable(new Placement([Buffer.from([0xff]), 'b', Buffer.from([0xfe])]), 16, { mode: 'ranked', overloadPpm: 0 }).assignments());
});

const bad = [
  ['slots negative', (p) => new SlotTable(p, -1), { code: 'HRW_INVALID_COUNT', name: 'RangeError' }],
  ['slots fractional', (p) => new SlotTable(p, 1.5), { code: 'HRW_INVALID_COUNT' }],
  ['slots NaN', (p) => new SlotTable(p, NaN), { code: 'HRW_INVALID_COUNT' }],
  ['slots zero', (p) => new SlotTable(p, 0), { code: 'HRW_INVALID_SLOT_COUNT', name: 'RangeError' }],
  ['slots above 2^24', (p) => new SlotTable(p, 2 ** 24 + 1), { code: 'HRW_INVALID_SLOT_COUNT' }],
  ['slots a string', (p) => new SlotTable(p, '8'), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['slots missing', (p) => new SlotTable(p), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['not a placement', () => new SlotTable(['a'], 8), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['options not an object', (p) => new SlotTable(p, 8, 5), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['options an array', (p) => new SlotTable(p, 8, []), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['unknown option', (p) => new SlotTable(p, 8, { colour: 1 }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['unknown mode', (p) => new SlotTable(p, 8, { mode: 'fair' }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['mode in capitals', (p) => new SlotTable(p, 8, { mode: 'Ranked' }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['mode a number', (p) => new SlotTable(p, 8, { mode: 1 }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['mode as bytes', (p) => new SlotTable(p, 8, { mode: Buffer.from('ranked') }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['overload with levelled', (p) => new SlotTable(p, 8, { mode: 'levelled', overloadPpm: 5 }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['bad overload with levelled', (p) => new SlotTable(p, 8, { overloadPpm: -1 }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['overload with the default mode', (p) => new SlotTable(p, 8, { overloadPpm: 5 }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }],
  ['overload negative', (p) => new SlotTable(p, 8, { mode: 'ranked', overloadPpm: -1 }), { code: 'HRW_INVALID_COUNT', name: 'RangeError' }],
  ['overload fractional', (p) => new SlotTable(p, 8, { mode: 'ranked', overloadPpm: 0.5 }), { code: 'HRW_INVALID_COUNT' }],
  ['overload 2^32', (p) => new SlotTable(p, 8, { mode: 'ranked', overloadPpm: 2 ** 32 }), { code: 'HRW_INVALID_COUNT', value: 2 ** 32 }],
  ['overload a string', (p) => new SlotTable(p, 8, { mode: 'ranked', overloadPpm: '5%' }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['epoch negative', (p) => new SlotTable(p, 8, { epoch: -1 }), { code: 'HRW_INVALID_COUNT' }],
  ['epoch above 2^64', (p) => new SlotTable(p, 8, { epoch: 2n ** 64n }), { code: 'HRW_INVALID_COUNT' }],
  ['epoch a string', (p) => new SlotTable(p, 8, { epoch: '1' }), { code: 'ERR_INVALID_ARG_TYPE' }],
  // The types of every argument before any value (API.md section 4).
  ['a bad mode before a bad slot count', (p) => new SlotTable(p, 0, { mode: 'fair' }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['a bad epoch type before a bad slot count', (p) => new SlotTable(p, -1, { epoch: 'x' }), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['slot negative', (p) => new SlotTable(p, 8).ownerOfSlot(-1), { code: 'HRW_INVALID_COUNT' }],
  ['slot 8 of 8', (p) => new SlotTable(p, 8).ownerOfSlot(8), { code: 'HRW_SLOT_OUT_OF_RANGE', name: 'RangeError', slot: 8, slots: 8 }],
  ['slot 8 of 8, ranked', (p) => new SlotTable(p, 8, { mode: 'ranked' }).ownerOfSlot(8), { code: 'HRW_SLOT_OUT_OF_RANGE' }],
  ['slot null', (p) => new SlotTable(p, 8).ownerOfSlot(null), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['key null', (p) => new SlotTable(p, 8).slot(null), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['key a number', (p) => new SlotTable(p, 8).owner(5), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['key lone surrogate', (p) => new SlotTable(p, 8).owner('\ud800'), { code: 'HRW_INVALID_TEXT' }],
  ['remove unknown', (p) => new SlotTable(p, 8).withoutNode('zz'), { code: 'HRW_UNKNOWN_NODE' }],
  ['remove null', (p) => new SlotTable(p, 8).withoutNode(null), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['weight unknown', (p) => new SlotTable(p, 8).withWeight('zz', 1), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight negative', (p) => new SlotTable(p, 8).withWeight('a', -1), { code: 'HRW_INVALID_WEIGHT', value: -1, index: 0 }],
  ['weight infinite', (p) => new SlotTable(p, 8).withWeight('a', Infinity), { code: 'HRW_INVALID_WEIGHT' }],
  ['weight a string', (p) => new SlotTable(p, 8).withWeight('a', '2'), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['add duplicate', (p) => new SlotTable(p, 8).withNode('a'), { code: 'HRW_DUPLICATE_NODE_ID' }],
  ['add empty id', (p) => new SlotTable(p, 8).withNode(''), { code: 'HRW_EMPTY_NODE_ID' }],
  ['add NaN weight', (p) => new SlotTable(p, 8).withNode({ id: 'c', weight: NaN }), { code: 'HRW_INVALID_WEIGHT', index: 2 }],
  ['add a number', (p) => new SlotTable(p, 8).withNode(5), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['remove every node', (p) => new SlotTable(p, 8).withoutNode('a').withoutNode('b'), { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['remove every node, ranked', (p) => new SlotTable(p, 8, { mode: 'ranked' }).withoutNode('a').withoutNode('b'), { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['drain every node', (p) => new SlotTable(p, 8).withWeight('a', 0).withWeight('b', 0), { code: 'HRW_ALL_WEIGHTS_ZERO' }],
  ['drain every node, ranked', (p) => new SlotTable(p, 8, { mode: 'ranked', overloadPpm: 10 }).withWeight('a', 0).withWeight('b', 0), { code: 'HRW_ALL_WEIGHTS_ZERO' }],
  ['epoch copy negative', (p) => new SlotTable(p, 8).withEpoch(-1), { code: 'HRW_INVALID_COUNT' }],
  ['epoch copy above 2^64', (p) => new SlotTable(p, 8).withEpoch(2n ** 64n), { code: 'HRW_INVALID_COUNT' }],
  ['epoch copy a string', (p) => new SlotTable(p, 8).withEpoch('1'), { code: 'ERR_INVALID_ARG_TYPE' }],
];
for (const [name, call, error] of bad) {
  test(`bad input: ${name}`, () => {
    assert.throws(() => call(new Placement(['a', 'b'])), error);
  });
}

// A change in place that throws leaves the table as it was, in both modes.
const badInPlace = [
  ['add duplicate', (t) => t.addNode('a'), { code: 'HRW_DUPLICATE_NODE_ID' }],
  ['add empty id', (t) => t.addNode(''), { code: 'HRW_EMPTY_NODE_ID' }],
  ['add NaN weight', (t) => t.addNode({ id: 'c', weight: NaN }), { code: 'HRW_INVALID_WEIGHT' }],
  ['add a number', (t) => t.addNode(5), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['add lone surrogate', (t) => t.addNode('\udc00'), { code: 'HRW_INVALID_TEXT' }],
  ['remove unknown', (t) => t.removeNode('zz'), { code: 'HRW_UNKNOWN_NODE' }],
  ['remove null', (t) => t.removeNode(null), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['remove the last node', (t) => { t.removeNode('a'); t.removeNode('b'); }, { code: 'HRW_EMPTY_MEMBERSHIP' }],
  ['weight unknown', (t) => t.setWeight('zz', 1), { code: 'HRW_UNKNOWN_NODE' }],
  ['weight negative', (t) => t.setWeight('a', -1), { code: 'HRW_INVALID_WEIGHT' }],
  ['weight a string', (t) => t.setWeight('a', '2'), { code: 'ERR_INVALID_ARG_TYPE' }],
  ['drain the last node', (t) => { t.setWeight('a', 0); t.setWeight('b', 0); }, { code: 'HRW_ALL_WEIGHTS_ZERO' }],
];
for (const mode of ['levelled', 'ranked']) {
  for (const [name, call, error] of badInPlace) {
    test(`bad change in place (${mode}): ${name}`, () => {
      const t = new SlotTable(new Placement(['a', 'b']), 8, { mode });
      assert.throws(() => call(t), error);
      // The changes before the one that threw stay; the one that threw left nothing.
      const ok = new SlotTable(new Placement(['a', 'b']), 8, { mode });
      if (name === 'remove the last node') ok.removeNode('a');
      if (name === 'drain the last node') ok.setWeight('a', 0);
      assert.equal(t.changeCount, ok.changeCount);
      assert.equal(t.fingerprint, ok.fingerprint);
      assert.deepEqual(t.assignments(), ok.assignments());
      assert.deepEqual(t.placement.nodes(), ok.placement.nodes());
    });
  }
}

test("a change's membership errors carry its position in the history", () => {
  for (const mode of ['levelled', 'ranked']) {
    const t = new SlotTable(new Placement(['a', 'b']), 8, { mode });
    t.addNode('c');
    t.setWeight('a', 2);
    assert.throws(() => t.addNode('b'), { code: 'HRW_DUPLICATE_NODE_ID', index: 2 });
    assert.throws(() => t.withNode(''), { code: 'HRW_EMPTY_NODE_ID', index: 2 });
    assert.equal(t.changeCount, 2);
  }
});

// API.md: the same bad input gets the same error in every API. An unknown node with an invalid
// weight is HRW_UNKNOWN_NODE for Placement and SlotTable alike (types first, then the node, then
// the weight's value); a known node's invalid weight stays HRW_INVALID_WEIGHT.
for (const weight of [NaN, -1]) {
  test(`withWeight looks the node up before the weight (${weight})`, () => {
    const p = new Placement(['a', 'b', 'c']);
    const t = new SlotTable(p, 8);
    const calls = {
      Placement: (id, w) => p.withWeight(id, w),
      'SlotTable.withWeight': (id, w) => t.withWeight(id, w),
      'SlotTable.setWeight': (id, w) => t.setWeight(id, w),
      ranked: (id, w) => new SlotTable(p, 8, { mode: 'ranked' }).withWeight(id, w),
    };
    for (const [api, withWeight] of Object.entries(calls)) {
      assert.throws(() => withWeight('zz', weight), { code: 'HRW_UNKNOWN_NODE' }, api);
      assert.throws(() => withWeight('b', weight), { code: 'HRW_INVALID_WEIGHT', index: 1 }, api);
      assert.throws(() => withWeight('zz', '2'), { name: 'TypeError' }, api);
    }
    // The table's current membership: a node it removed is unknown, one it added is known.
    const later = t.withoutNode('a').withNode('d');
    assert.throws(() => later.withWeight('a', weight), { code: 'HRW_UNKNOWN_NODE' });
    assert.throws(() => later.withWeight('d', weight), { code: 'HRW_INVALID_WEIGHT' });
    assert.equal(t.changeCount, 0);
  });
}
