// conformance/api-cases.json, the bad-input contract of conformance/API.md, run against this
// package: every case that does not name `node` in `not_expressible` and whose op Node offers.
// Cases of `new` run with parallel lists (`options.weights`, `options.domains`) and, where the
// case can be put that way, again with node objects `{ id, weight, domain }`.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const hrwhash = require('hrwhash');

const { Placement, DEFAULT_SEED, View, BoundedLoad, ProfilePlacement, SlotTable } = hrwhash;
const LANGUAGE = 'node';
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'api-cases.json'), 'utf8'));

// --- value forms (the file's `values`) -------------------------------------------------------

const ONE_KEY_FORMS = {
  bytes: (hex) => new Uint8Array(Buffer.from(hexOf(hex), 'hex')),
  utf16: (hex) => {
    assert.equal(hexOf(hex).length % 4, 0, `utf16 form ${hex} is not four hex digits per unit`);
    return String.fromCharCode(...hex.match(/..../g).map((u) => parseInt(u, 16)));
  },
  float: (name) => {
    const f = { nan: NaN, inf: Infinity, '-inf': -Infinity }[name];
    assert.ok(f !== undefined, `unknown float form ${JSON.stringify(name)}`);
    return f;
  },
  // JavaScript's integers are its numbers: the nearest one stands for a larger integer.
  int: (decimal) => Number(BigInt(decimal)),
  released: (hex) => {
    const bytes = Buffer.from(hexOf(hex), 'hex');
    const view = new Uint8Array(new ArrayBuffer(bytes.length));
    view.set(bytes);
    structuredClone(view.buffer, { transfer: [view.buffer] }); // detaches `view`
    assert.equal(view.buffer.byteLength, 0, 'the buffer is detached');
    return view;
  },
  array_length: (n) => Object.assign([], { length: n }),
  range: ({ prefix, count, ...rest }) => {
    assert.deepEqual(rest, {}, 'unknown range field');
    return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  },
};

function hexOf(hex) {
  assert.match(hex, /^([0-9a-f]{2})*$/, `not hex: ${hex}`);
  return hex;
}

function value(v) {
  if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return v;
  if (Array.isArray(v)) return v.map(value);
  const keys = Object.keys(v);
  if (keys.length === 1 && Object.hasOwn(ONE_KEY_FORMS, keys[0])) return ONE_KEY_FORMS[keys[0]](v[keys[0]]);
  // A node object, with whatever members the case gives it (a misspelled one is a mistake).
  if (keys.includes('id')) return Object.fromEntries(keys.map((k) => [k, value(v[k])]));
  throw new Error(`unknown value form ${JSON.stringify(v)}`);
}

const isNodeObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && 'id' in v;

// --- ops (the file's `ops`) ------------------------------------------------------------------

const ARGS = {
  new: ['nodes', 'weights', 'domains', 'seed', 'options'],
  owner: ['key'],
  rank: ['key', 'k'],
  replicas: ['key', 'k'],
  replicas_strict: ['key', 'k'],
  score: ['key', 'node'],
  owners: ['keys'],
  rank_many: ['keys', 'k'],
  with_node: ['node', 'weight', 'domain'],
  without_node: ['node'],
  with_weight: ['node', 'weight'],
  set_weight: ['node', 'weight'],
  weight_fixed: ['weight'],
  key_digest: ['key', 'seed'],
  node_digest: ['node', 'seed'],
  view: ['epoch'],
  with_epoch: ['epoch'],
  bounded_load: ['c'],
  slot_table: ['slots', 'overload_ppm'],
  bounded_load_owner: ['key', 'loads'],
  profile_placement: ['profile', 'nodes'],
};

/// The arguments of a case as JavaScript values (`options` is an object of named values).
function decode(args) {
  return Object.fromEntries(
    Object.entries(args).map(([name, v]) => [
      name,
      name === 'options' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)])) : value(v),
    ]),
  );
}

/// `new` with parallel lists: nodes as given, weights and domains as options.
function newWithLists(v) {
  const options = { ...v.options };
  for (const name of ['weights', 'domains', 'seed']) if (name in v) options[name] = v[name];
  return new Placement(v.nodes, options);
}

/// `new` with node objects, or `null` when the case cannot be put that way: the node list is not
/// a list of plain ids, a list's length differs from the node count (a mismatch has no object
/// form), or a weights list holds `null` (not a weight in a list, "not given" in an object).
function newWithObjects(a, v) {
  if (!Array.isArray(a.nodes) || a.nodes.some((n) => isNodeObject(n))) return null;
  for (const list of ['weights', 'domains']) {
    if (list in a && (!Array.isArray(a[list]) || a[list].length !== a.nodes.length)) return null;
  }
  if ('weights' in a && a.weights.some((w) => w === null)) return null;
  const nodes = v.nodes.map((id, i) => {
    const node = { id };
    if ('weights' in v) node.weight = v.weights[i];
    if ('domains' in v) node.domain = v.domains[i];
    return node;
  });
  const options = { ...v.options };
  if ('seed' in v) options.seed = v.seed;
  return () => new Placement(nodes, options);
}

function withNodeCalls(p, v) {
  if (!('weight' in v) && !('domain' in v)) {
    return [() => p().withNode(v.node), () => p().withNode({ id: v.node })];
  }
  const node = { id: v.node };
  if ('weight' in v) node.weight = v.weight;
  if ('domain' in v) node.domain = v.domain;
  return [() => p().withNode(node)];
}

/// The calls that pose case `c`, each a function that runs it once.
function calls(c) {
  const a = c.args;
  assert.ok(Object.hasOwn(ARGS, c.op), `unknown op ${c.op}`);
  for (const name of Object.keys(a)) assert.ok(ARGS[c.op].includes(name), `unknown argument ${name} of ${c.op}`);
  const v = decode(a);
  if (c.op === 'new') {
    assert.equal(c.placement, undefined, 'a new case has no placement');
    return [() => newWithLists(v), newWithObjects(a, v)].filter(Boolean);
  }
  if (c.op === 'profile_placement') return [() => new ProfilePlacement(v.profile, v.nodes)];
  assert.ok(c.op.endsWith('_digest') || c.op === 'weight_fixed' || c.placement, `${c.op} needs a placement`);
  const built = c.placement && decode(c.placement);
  const p = () => newWithLists(built);
  switch (c.op) {
    case 'owner': return [() => p().owner(v.key)];
    case 'rank': return [() => p().rank(v.key, v.k)];
    case 'replicas': return [() => p().replicas(v.key, v.k)];
    case 'replicas_strict': return [() => p().replicasStrict(v.key, v.k)];
    case 'score': return [() => p().score(v.key, v.node)];
    case 'owners': return [() => p().owners(v.keys)];
    case 'rank_many': return [() => p().rankMany(v.keys, v.k)];
    case 'with_node': return withNodeCalls(p, v);
    case 'without_node': return [() => p().withoutNode(v.node)];
    case 'with_weight': return [() => p().withWeight(v.node, v.weight)];
    case 'set_weight': return [() => new SlotTable(p(), 64).setWeight(v.node, v.weight)];
    case 'weight_fixed': return [() => hrwhash.weightToFixed(v.weight)];
    case 'key_digest': return [() => ('seed' in v ? hrwhash.keyDigest(v.key, v.seed) : hrwhash.keyDigest(v.key))];
    case 'node_digest': return [() => ('seed' in v ? hrwhash.nodeDigest(v.node, v.seed) : hrwhash.nodeDigest(v.node))];
    case 'view': return [() => new View(p(), v.epoch)];
    case 'with_epoch': return [() => new View(p(), 0).withEpoch(v.epoch)];
    case 'bounded_load': return [() => new BoundedLoad(p(), v.c)];
    case 'slot_table': return [() => new SlotTable(p(), v.slots, { mode: 'ranked', overloadPpm: v.overload_ppm })];
    case 'bounded_load_owner': return [() => new BoundedLoad(p(), 1.25).owner(v.key, v.loads)];
  }
  throw new Error(`op ${c.op} has no call`);
}

// --- expectations (the file's `results` and API.md sections 1 and 2) ------------------------

const VARIANTS = {
  EmptyMembership: [Error, 'HRW_EMPTY_MEMBERSHIP'],
  EmptyNodeId: [Error, 'HRW_EMPTY_NODE_ID'],
  DuplicateNodeId: [Error, 'HRW_DUPLICATE_NODE_ID'],
  InvalidWeight: [Error, 'HRW_INVALID_WEIGHT'],
  AllWeightsZero: [Error, 'HRW_ALL_WEIGHTS_ZERO'],
  InvalidSeedLength: [Error, 'HRW_INVALID_SEED_LENGTH'],
  LengthMismatch: [Error, 'HRW_LENGTH_MISMATCH'],
  UnknownNode: [Error, 'HRW_UNKNOWN_NODE'],
  InvalidText: [Error, 'HRW_INVALID_TEXT'],
  InvalidCount: [RangeError, 'HRW_INVALID_COUNT'],
  ResultTooLarge: [RangeError, 'HRW_RESULT_TOO_LARGE'],
  InvalidReplicaCount: [RangeError, 'HRW_INVALID_REPLICA_COUNT'],
  InvalidArgument: [TypeError, 'ERR_INVALID_ARG_TYPE'],
  TooManyNodes: [Error, 'HRW_TOO_MANY_NODES'],
  InvalidBalanceFactor: [Error, 'HRW_INVALID_BALANCE_FACTOR'],
};

/// A detail of a case and the property of the thrown error that carries it.
function property(detail, variant) {
  if (detail === 'first_index') return 'firstIndex';
  // The seed's length is `length`, as for every other seed error of this package.
  if (detail === 'actual' && variant === 'InvalidSeedLength') return 'length';
  return detail;
}
const DETAILS = ['index', 'first_index', 'expected', 'actual'];
const CASE_FIELDS = ['name', 'op', 'args', 'placement', 'error', 'result', 'not_expressible', ...DETAILS];

function expectError(c, call) {
  assert.ok(Object.hasOwn(VARIANTS, c.error), `unknown variant ${c.error}`);
  const [cls, code] = VARIANTS[c.error];
  assert.throws(call, (err) => {
    assert.ok(err instanceof cls, `${err.name} is not a ${cls.name}: ${err.message}`);
    if (cls === Error) assert.ok(!(err instanceof TypeError) && !(err instanceof RangeError), `${err.name}: ${err.message}`);
    assert.equal(err.code, code, err.message);
    for (const d of DETAILS) if (d in c) assert.equal(err[property(d, c.error)], c[d], `${d}: ${err.message}`);
    return true;
  });
}

const RESULTS = {
  ok: (_r, want) => assert.equal(want, true),
  len: (r, want) => assert.equal(r.length, want),
  row_len: (r, want) => r.forEach((row, i) => assert.equal(row.length, want, `row ${i}`)),
  selectable: (p, want) => assert.equal(p.selectableLength, want),
  weights: (p, want) => assert.deepEqual(p.nodes().map((n) => n.weight), want),
  owner_of_every_key: (p, want) => {
    for (let i = 0; i < 64; i++) assert.equal(p.owner(String(i)), want, `key ${i}`);
  },
  default_seed: (p, want) => assert.equal(p.seed === DEFAULT_SEED, want),
  fixed: (r, want) => assert.equal(typeof r === 'bigint' && r.toString(), want),
  score: (r, want) => assert.equal(typeof r === 'bigint' && r.toString(), want),
};

function expectResult(c, call) {
  const r = call();
  for (const [key, want] of Object.entries(c.result)) {
    assert.ok(Object.hasOwn(RESULTS, key), `unknown result key ${key}`);
    RESULTS[key](r, want);
  }
}

// --- the run ---------------------------------------------------------------------------------

test('api-cases.json: format', () => {
  assert.equal(doc.version, 'hrwhash-api-v1');
  assert.ok(doc.languages.includes(LANGUAGE));
  for (const lang of Object.keys(doc.not_offered)) {
    if (lang !== '_comment') assert.ok(doc.languages.includes(lang), `unknown language ${lang} in not_offered`);
  }
  for (const op of doc.not_offered[LANGUAGE]) assert.ok(Object.hasOwn(ARGS, op), `unknown op ${op} in not_offered`);
  assert.deepEqual(Object.keys(doc.ops).sort(), Object.keys(ARGS).sort(), 'the ops this runner knows');
  assert.deepEqual(Object.keys(doc.results).sort(), Object.keys(RESULTS).sort(), 'the result keys this runner knows');
});

test('api-cases.json: every case', async (t) => {
  let ran = 0;
  let withObjects = 0;
  const notExpressible = [];
  const notOffered = [];
  for (const c of doc.cases) {
    for (const field of Object.keys(c)) assert.ok(CASE_FIELDS.includes(field), `${c.name}: unknown field ${field}`);
    for (const lang of Object.keys(c.not_expressible ?? {})) {
      assert.ok(doc.languages.includes(lang), `${c.name}: unknown language ${lang}`);
    }
    assert.ok(('error' in c) !== ('result' in c), `${c.name}: needs one of error and result`);
    if (c.not_expressible?.[LANGUAGE]) {
      notExpressible.push(c.name);
      continue;
    }
    if (doc.not_offered[LANGUAGE].includes(c.op)) {
      notOffered.push(c.name);
      continue;
    }
    const forms = calls(c);
    await t.test(c.name, () => {
      for (const call of forms) ('error' in c ? expectError : expectResult)(c, call);
    });
    ran++;
    if (c.op === 'new' && forms.length > 1) withObjects++;
  }
  const summary =
    `api-cases.json: ran ${ran} of ${doc.cases.length} cases (${withObjects} of them also with node objects); ` +
    `${notExpressible.length} not expressible, ${notOffered.length} not offered` +
    (notOffered.length ? ` (${notOffered.join('; ')})` : '');
  t.diagnostic(summary);
  console.log(summary);
  assert.equal(ran + notExpressible.length + notOffered.length, doc.cases.length);
});
