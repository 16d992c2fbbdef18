// Every case of ../conformance/views.json (VIEW.md) through the public API: fingerprints, canonical
// output, owners, expected errors, movement and ramp steps.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Placement, View, Transition, RampPlan, ramp, RAMP_GRID } = require('hrwhash');
const { isWasm } = require('./helpers.js');

const views = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'views.json'), 'utf8'));
const KINDS = ['valid', 'equivalent', 'invalid', 'movement', 'ramps'];
const codeOf = (variant) => 'HRW_' + variant.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
const FIXED_ONE = 2 ** 32;

/** The document of a case as the loader is given it: its text, or its bytes when not UTF-8. */
const documentOf = (c) => (c.document_hex !== undefined ? Buffer.from(c.document_hex, 'hex') : c.document);
const loadOptions = (c) => (c.seed !== undefined ? { seed: c.seed } : undefined);
/** An id of the file as the binding returns it: a string, or a Buffer for `id_hex`. */
const idOf = (n) => (n.id_hex !== undefined ? Buffer.from(n.id_hex, 'hex') : n.id);
/** A fixed-point weight (decimal string) as the number it is: exact, at most 53 significant bits. */
const weightOf = (w) => Number(BigInt(w)) / FIXED_ONE;

test('the file has the format and only the case kinds this suite knows', () => {
  assert.equal(views.format, 'hrwhash-view-v1');
  const unknown = Object.keys(views).filter((k) => !['_comment', 'format', 'default_seed_fingerprint', ...KINDS].includes(k));
  assert.deepEqual(unknown, [], 'views.json has case kinds this suite does not run');
  for (const kind of KINDS) assert.ok(views[kind].length > 0, `no ${kind} cases`);
});

test('the default seed fingerprint', () => {
  const v = new View(new Placement(['a']), 0);
  assert.equal(v.seedFingerprint, views.default_seed_fingerprint);
  assert.equal(v.hasDefaultSeed, true);
});

for (const c of views.valid) {
  test(`valid: ${c.name}`, () => {
    const v = View.fromJson(documentOf(c), loadOptions(c));
    assert.equal(v.fingerprint, c.fingerprint);
    assert.equal(v.seedFingerprint, c.seed_fingerprint);
    assert.equal(v.epoch, BigInt(c.epoch));
    assert.equal(v.toJson(), c.canonical);
    const p = v.placement;
    for (const { key, owner } of c.owners) {
      assert.equal(p.ownerIndex(key), owner, `owner of ${JSON.stringify(key)}`);
      assert.equal(p.ownerIndex(Buffer.from(key, 'utf8')), owner);
    }
    // The canonical form loads back to the same view, from text and from bytes.
    const again = View.fromJson(Buffer.from(c.canonical, 'utf8'), loadOptions(c));
    assert.equal(again.fingerprint, c.fingerprint);
    assert.equal(again.toJson(), c.canonical);
    // A view built from the placement is the same view.
    assert.equal(new View(p, BigInt(c.epoch)).toJson(), c.canonical);
  });
}

test('fromFile reads an endless stream only up to its first byte no JSON holds', () => {
  assert.throws(
    () => View.fromFile('/dev/zero'),
    (e) => e.code === 'HRW_INVALID_JSON' && e.line === 1 && e.column === 1,
  );
});

test('fromFile reads the same view as fromJson', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrwhash-views-'));
  try {
    for (const c of views.valid) {
      const file = path.join(dir, `${c.name}.json`);
      fs.writeFileSync(file, documentOf(c));
      const v = View.fromFile(file, loadOptions(c));
      assert.equal(v.fingerprint, c.fingerprint);
      assert.equal(v.toJson(), c.canonical);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('fromFile takes a Buffer path, whose bytes need not be UTF-8', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrwhash-views-'));
  try {
    const c = views.valid[0];
    // A Linux file name is bytes: 0xff is no UTF-8, and fs writes it from a Buffer.
    const name = Buffer.concat([Buffer.from(path.join(dir, 'view-')), Buffer.from([0xff]), Buffer.from('.json')]);
    fs.writeFileSync(name, documentOf(c));
    if (isWasm()) {
      // WASI names files by UTF-8 strings: such a name cannot be reached, and is refused rather
      // than read as another name.
      for (const p of [name, new Uint8Array(name)]) assert.throws(() => View.fromFile(p, loadOptions(c)), { code: 'EINVAL' });
      return;
    }
    assert.equal(View.fromFile(name, loadOptions(c)).fingerprint, c.fingerprint);
    assert.equal(View.fromFile(new Uint8Array(name), loadOptions(c)).fingerprint, c.fingerprint);
    const missing = Buffer.concat([Buffer.from(path.join(dir, 'no-')), Buffer.from([0xfe])]);
    assert.throws(() => View.fromFile(missing), { code: 'ENOENT' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

for (const c of views.equivalent) {
  test(`equivalent: ${c.name}`, () => {
    const a = View.fromJson(c.a);
    const b = View.fromJson(c.b);
    assert.equal(a.fingerprint, c.fingerprint);
    assert.equal(b.fingerprint, c.fingerprint);
    assert.equal(a.withEpoch(0).toJson(), b.withEpoch(0).toJson());
  });
}

for (const c of views.invalid) {
  test(`invalid: ${c.name}`, () => {
    assert.throws(
      () => View.fromJson(documentOf(c), loadOptions(c)),
      (e) => {
        assert.ok(e instanceof Error);
        assert.equal(e.code, codeOf(c.error), e.message);
        if (c.error === 'InvalidView') {
          assert.equal(e.field, c.field);
          assert.equal(e.index, c.index);
          assert.equal(e.reason, c.reason);
        } else {
          if (c.index !== undefined) assert.equal(e.index, c.index);
          if (c.first_index !== undefined) assert.equal(e.firstIndex, c.first_index);
        }
        if (c.error === 'InvalidJson') {
          assert.ok(Number.isInteger(e.line) && e.line >= 1);
          assert.ok(Number.isInteger(e.column) && e.column >= 0);
        }
        return true;
      },
    );
  });
}

for (const c of views.movement) {
  test(`movement: ${c.name}`, () => {
    const side = (which) =>
      new Placement(c.nodes.filter((n) => n[which] !== '0').map((n) => ({ id: idOf(n), weight: weightOf(n[which]) })));
    const t = new Transition(side('old'), side('new'));
    assert.equal(t.expectedMoved, c.expected_moved);
    assert.equal(t.optimum, c.optimum);
  });
}

for (const c of views.ramps) {
  test(`ramp: ${c.name}`, () => {
    const from = View.fromJson(c.from);
    const to = View.fromJson(c.to);
    if (c.error !== undefined) {
      assert.throws(() => new RampPlan(from, to, c.max_move), (e) => e.code === codeOf(c.error));
      assert.throws(() => ramp(from, to, c.max_move), (e) => e.code === codeOf(c.error));
      return;
    }
    assert.equal(RAMP_GRID, c.grid);
    const plan = ramp(from, to, c.max_move);
    assert.equal(plan.maxMove, c.max_move);
    assert.equal(plan.totalMoved, c.total_moved);
    assert.equal(plan.directMoved, c.direct_moved);
    assert.equal(plan.optimum, c.optimum);
    const steps = plan.steps;
    assert.equal(steps.length, c.steps.length);
    const stepViews = plan.views();
    steps.forEach((s, i) => {
      const want = c.steps[i];
      assert.equal(s.epoch, BigInt(want.epoch));
      assert.equal(s.position, want.position);
      assert.equal(s.moved, want.moved);
      assert.equal(s.removesDrained, want.removes_drained);
      const v = plan.view(i);
      assert.equal(v.epoch, s.epoch);
      assert.equal(stepViews[i].fingerprint, v.fingerprint);
      const weights = v.placement.nodes().map((n) => ({ id: n.id, weight: String(n.weightFixed) }));
      assert.deepEqual(weights, want.weights.map((w) => ({ id: idOf(w), weight: w.weight })));
    });
    if (steps.length > 0) assert.equal(plan.view(steps.length - 1).fingerprint, to.fingerprint);
  });
}
