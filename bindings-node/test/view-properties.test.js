// Properties of views, transitions and ramps that hold for any pair of memberships (fast-check),
// and how the view API rejects bad arguments.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { Placement, View, Transition, RampPlan, ramp } = require('hrwhash');

const RUNS = { numRuns: 100 };
const id = fc.string({ minLength: 1, maxLength: 8 });
const key = fc.oneof(fc.string({ maxLength: 30 }), fc.uint8Array({ maxLength: 30 }));
const keys = fc.array(key, { minLength: 1, maxLength: 60 });
const weight = fc.oneof(fc.constant(1), fc.constantFrom(0.5, 2, 3), fc.double({ min: 0.01, max: 100, noNaN: true }));
const member = fc.record({ id, weight });
const members = fc.uniqueArray(member, { minLength: 1, maxLength: 12, selector: (m) => m.id });
const epoch = fc.bigInt({ min: 0n, max: 2n ** 63n });

/** Two memberships that share some ids, so transitions have nodes that stay, join and leave. */
const pair = fc.tuple(members, members).map(([a, b]) => [a, [...b, ...a.slice(0, Math.ceil(a.length / 2))]
  .filter((m, i, all) => all.findIndex((o) => o.id === m.id) === i)]);

const same = (x, y) => (typeof x === 'string' ? x === y : Buffer.compare(x, y) === 0);

test('route() agrees with owner() on both memberships, and moved means the ids differ', () => {
  fc.assert(
    fc.property(pair, keys, epoch, ([a, b], ks, e) => {
      const old = new View(new Placement(a), e);
      const nu = new Placement(b);
      const t = new Transition(old, nu);
      const p = old.placement;
      for (const k of ks) {
        const r = t.route(k);
        assert.equal(r.old, p.owner(k));
        assert.equal(r.new, nu.owner(k));
        assert.equal(r.oldIndex, p.ownerIndex(k));
        assert.equal(r.newIndex, nu.ownerIndex(k));
        assert.equal(r.moved, r.old !== r.new);
      }
    }),
    RUNS,
  );
});

test('a transition gives back both memberships, ids and domains in the form they were given', () => {
  const old = new Placement([{ id: Buffer.from('a'), domain: Buffer.from('r1') }, { id: 'b', weight: 2, domain: 'r2' }]);
  const view = new View(new Placement([{ id: 'a', domain: 'r1' }, { id: Buffer.from([0xff]) }]), 5);
  const t = new Transition(old, view);
  assert.deepEqual(t.oldPlacement.nodes(), old.nodes());
  assert.deepEqual(t.newPlacement.nodes(), view.placement.nodes());
  assert.deepEqual(t.newPlacement.nodes().map((n) => n.id), ['a', Buffer.from([0xff])]);
  assert.deepEqual(t.oldPlacement.nodes().map((n) => n.domain), [Buffer.from('r1'), 'r2']);
  assert.equal(new View(t.newPlacement, 5).fingerprint, view.fingerprint);
});

test('routeTop() is replicas() (here, without domains, rank()) on both sides, and add/drop are the set differences', () => {
  fc.assert(
    fc.property(pair, keys, fc.integer({ min: 0, max: 5 }), ([a, b], ks, k) => {
      const old = new Placement(a);
      const nu = new Placement(b);
      const t = new Transition(old, nu);
      for (const key of ks) {
        const r = t.routeTop(key, k);
        assert.deepEqual(r.before, old.replicas(key, k));
        assert.deepEqual(r.after, nu.replicas(key, k));
        assert.deepEqual(r.before, old.rank(key, k));
        assert.deepEqual(r.after, nu.rank(key, k));
        assert.deepEqual(r.add, r.after.filter((x) => !r.before.includes(x)));
        assert.deepEqual(r.drop, r.before.filter((x) => !r.after.includes(x)));
      }
    }),
    RUNS,
  );
});

test('diff(): flows sum to moved, per-node counts sum to the keys, plan() yields exactly the moved keys', () => {
  fc.assert(
    fc.property(pair, keys, ([a, b], ks) => {
      const t = new Transition(new Placement(a), new Placement(b));
      const d = t.diff(ks);
      assert.equal(d.keys, ks.length);
      assert.equal(d.flows.reduce((s, f) => s + f.count, 0), d.moved);
      assert.equal(d.nodes.reduce((s, n) => s + n.before, 0), ks.length);
      assert.equal(d.nodes.reduce((s, n) => s + n.after, 0), ks.length);
      assert.equal(d.expectedMoved, t.expectedMoved);
      const moved = ks.filter((k) => t.route(k).moved);
      assert.equal(d.moved, moved.length);
      const planned = [...t.plan(ks)];
      assert.equal(planned.length, moved.length);
      planned.forEach((m, i) => {
        assert.equal(m.key, moved[i]);
        const r = t.route(m.key);
        assert.ok(same(m.from, r.old) && same(m.to, r.new));
      });
    }),
    RUNS,
  );
});

test('diff() and plan() take any iterable and pull from it lazily', () => {
  const t = new Transition(new Placement(['a', 'b']), new Placement(['a', 'b', 'c']));
  function* gen(n) {
    for (let i = 0; i < n; i++) yield `key-${i}`;
  }
  const fromArray = t.diff(Array.from(gen(5000)));
  assert.deepEqual(t.diff(gen(5000)), fromArray);
  assert.deepEqual(t.diff(new Set(gen(5000))), fromArray);
  let pulled = 0;
  const counting = {
    *[Symbol.iterator]() {
      for (const k of gen(5000)) {
        pulled++;
        yield k;
      }
    },
  };
  const plan = t.plan(counting);
  assert.equal(pulled, 0, 'nothing is read before the first next()');
  const first = plan.next();
  assert.equal(first.done, false);
  assert.ok(pulled < 5000);
  assert.equal(t.route(first.value.key).moved, true);
  let rest = 0;
  for (const m of plan) {
    assert.equal(m.to, 'c');
    rest++;
  }
  assert.equal(1 + rest, fromArray.moved);
  assert.equal(pulled, 5000);
  assert.deepEqual(plan.next(), { done: true });
});

/** What the step from the old weights to grid position 1 of 65536 moves (VIEW.md 7), in binary64:
 * every node of the new membership, then the leaving ones, a 65536th of the way. */
function firstGridStepMoves(a, b) {
  const G = 65536;
  const w = (ms, id) => ms.find((m) => m.id === id)?.weight ?? 0;
  const tracks = [...b, ...a.filter((m) => !b.some((n) => n.id === m.id))];
  const step = tracks.map((m) => ({ id: m.id, weight: (w(a, m.id) * (G - 1) + w(b, m.id)) / G }));
  return new Transition(new Placement(a), new Placement(step)).expectedMoved;
}

test('a ramp ends at the target view and no step exceeds its limit, by the numbers and on a key sample', () => {
  const sample = Array.from({ length: 20000 }, (_, i) => `sample-${i}`);
  fc.assert(
    fc.property(pair, fc.constantFrom(0.05, 0.1, 0.25, 1), epoch, ([a, b], limit, e) => {
      const from = new View(new Placement(a), e);
      const to = new View(new Placement(b), e + 1n);
      let plan;
      try {
        plan = ramp(from, to, limit);
      } catch (err) {
        // A limit below what the first grid step moves (a tiny old fleet, a large join) is
        // refused, never stepped over: check that the step to grid position 1 moves more.
        assert.equal(err.code, 'HRW_INVALID_MOVE_LIMIT');
        assert.ok(firstGridStepMoves(a, b) > limit - 1e-9, `limit ${limit} was reachable`);
        return;
      }
      const steps = plan.steps;
      if (from.fingerprint === to.fingerprint) {
        assert.equal(steps.length, 0);
        return;
      }
      assert.ok(steps.length > 0);
      let prev = from.placement;
      steps.forEach((s, i) => {
        assert.ok(s.moved <= limit, `step ${i} moves ${s.moved} > ${limit}`);
        assert.equal(s.epoch, e + BigInt(i + 1));
        const next = plan.view(i).placement;
        // Measured on the sample, a step stays within a few standard errors of its expectation.
        const t = new Transition(prev, next);
        const measured = t.diff(sample).moved / sample.length;
        const sd = Math.sqrt((s.moved * (1 - s.moved)) / sample.length);
        assert.ok(measured <= limit + 6 * sd + 1e-3, `step ${i} moved ${measured} of the sample`);
        prev = next;
      });
      const last = plan.view(steps.length - 1);
      assert.equal(last.fingerprint, to.fingerprint);
      assert.equal(last.epoch, e + BigInt(steps.length));
      assert.ok(plan.totalMoved >= plan.directMoved - 1e-12);
      assert.ok(plan.directMoved >= plan.optimum - 1e-9);
    }),
    { numRuns: 25 },
  );
});

test('toJson() round-trips for any membership, node order and epoch', () => {
  fc.assert(
    fc.property(members, epoch, (ms, e) => {
      const v = new View(new Placement(ms), e);
      const back = View.fromJson(v.toJson());
      assert.equal(back.toJson(), v.toJson());
      assert.equal(back.epoch, e);
      assert.equal(new View(new Placement([...ms].reverse()), 0).fingerprint, v.fingerprint);
    }),
    RUNS,
  );
});

test('a secret seed is never written, and loading with another seed is HRW_SEED_MISMATCH', () => {
  const secret = '00112233445566778899aabbccddeeff';
  const v = new View(new Placement(['a', 'b'], { seed: secret }), 3);
  const text = v.toJson();
  assert.ok(!text.includes(secret));
  assert.equal(v.hasDefaultSeed, false);
  assert.equal(View.fromJson(text, { seed: Buffer.from(secret, 'hex') }).fingerprint, v.fingerprint);
  assert.throws(() => View.fromJson(text), { code: 'HRW_SEED_MISMATCH' });
  assert.throws(() => View.fromJson(text, { seed: 'ff'.repeat(16) }), { code: 'HRW_SEED_MISMATCH' });
  const other = new View(new Placement(['a', 'b']), 4);
  assert.throws(() => ramp(v, other, 0.1), { code: 'HRW_SEED_MISMATCH' });
});

test('bad arguments are typed errors', () => {
  const p = new Placement(['a', 'b']);
  const v = new View(p, 1);
  const typeError = { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' };
  assert.throws(() => new View({}, 1), typeError);
  assert.throws(() => new View(v, 1), typeError);
  assert.throws(() => new View(p, '1'), typeError);
  assert.throws(() => new View(p, -1), { name: 'RangeError', code: 'HRW_INVALID_COUNT' });
  assert.throws(() => new View(p, 1.5), { name: 'RangeError', code: 'HRW_INVALID_COUNT' });
  assert.throws(() => new View(p, 2n ** 64n), { name: 'RangeError', code: 'HRW_INVALID_COUNT' });
  assert.equal(new View(p, 2n ** 64n - 1n).epoch, 2n ** 64n - 1n);
  assert.throws(() => View.fromJson(42), typeError);
  assert.throws(() => View.fromJson(v.toJson(), { seeds: 'x' }), typeError);
  assert.throws(() => View.fromJson(v.toJson(), 'seed'), typeError);
  assert.throws(() => View.fromJson(v.toJson(), { seed: 'zz' }), typeError);
  assert.throws(() => View.fromJson(v.toJson(), { seed: 'abcd' }), { code: 'HRW_INVALID_SEED_LENGTH' });
  assert.throws(() => View.fromJson('"\ud800"'), { code: 'HRW_INVALID_TEXT' });
  assert.throws(() => View.fromFile(42), typeError);
  assert.throws(() => View.fromFile('/nonexistent/hrwhash-view.json'), { code: 'ENOENT' });
  // A NUL inside the path names no file (the C ABI's HRW_STATUS_IO): EINVAL, never its prefix.
  assert.throws(() => View.fromFile(`${__filename}\0x`), { code: 'EINVAL' });
  assert.throws(() => new Transition(v, 'b'), typeError);
  assert.throws(() => new Transition(null, v), typeError);
  const t = new Transition(v, p);
  assert.throws(() => t.route(1), typeError);
  assert.throws(() => t.route('\ud800'), { code: 'HRW_INVALID_TEXT' });
  assert.throws(() => t.routeTop('k', -1), { name: 'RangeError', code: 'HRW_INVALID_COUNT' });
  assert.throws(() => t.diff('abc'), typeError);
  assert.throws(() => t.diff(7), typeError);
  assert.throws(() => t.diff(['a', 1]), { ...typeError, index: 1 });
  assert.throws(() => t.diff(['a', 'b', '\ud800']), { code: 'HRW_INVALID_TEXT', index: 2 });
  assert.throws(() => t.plan({}), typeError);
  // A plan reads its keys as it is advanced, so a bad key is reported by next().
  const bad = t.plan(['a', 2]);
  assert.throws(() => bad.next(), { ...typeError, index: 1 });
  const boom = new Error('boom');
  assert.throws(
    () =>
      t.diff({
        *[Symbol.iterator]() {
          yield 'a';
          throw boom;
        },
      }),
    (e) => e === boom,
  );
  // A key source that advances its own plan is refused, not run reentrantly.
  let plan;
  const results = [];
  plan = new Transition(new Placement(['a']), new Placement(['b'])).plan(
    (function* () {
      yield 'x';
      try {
        plan.next();
        results.push('reentered');
      } catch (e) {
        results.push(e instanceof Error ? 'refused' : 'odd');
      }
      yield 'y';
    })(),
  );
  assert.deepEqual([...plan].map((m) => m.key), ['x', 'y']);
  assert.deepEqual(results, ['refused']);
  // Refused with the package's code, not napi-rs's status; and the plan goes on afterwards.
  let inner;
  const again = new Transition(new Placement(['a']), new Placement(['b'])).plan({
    [Symbol.iterator]() {
      let i = 0;
      return {
        next() {
          if (i === 1) {
            try {
              inner.next();
            } catch (e) {
              results.push(e);
            }
          }
          return i < 3 ? { value: `k${i++}`, done: false } : { done: true };
        },
      };
    },
  });
  inner = again;
  assert.deepEqual([...again].map((m) => m.key), ['k0', 'k1', 'k2']);
  const refused = results[1];
  assert.ok(refused instanceof TypeError, String(refused));
  assert.equal(refused.code, 'ERR_INVALID_ARG_TYPE');
  assert.match(refused.message, /own key source/);
  assert.throws(() => new RampPlan(v, p, 0.1), typeError);
  assert.throws(() => new RampPlan(v, v, '0.1'), typeError);
  for (const bad of [0, -0.1, 1.5, NaN, Infinity]) {
    assert.throws(() => ramp(v, new View(new Placement(['a', 'b', 'c']), 2), bad), (e) => {
      assert.equal(e.code, 'HRW_INVALID_MOVE_LIMIT');
      assert.ok(Object.is(e.value, bad));
      return true;
    });
  }
  const r = ramp(v, new View(new Placement(['a', 'b', 'c']), 2), 0.2);
  assert.throws(() => r.view(r.steps.length), {
    name: 'RangeError',
    code: 'HRW_INDEX_OUT_OF_RANGE',
    index: r.steps.length,
    len: r.steps.length,
  });
  assert.throws(() => r.view(-1), { name: 'RangeError', code: 'HRW_INVALID_COUNT' });
  assert.throws(() => View.prototype.toJson.call({}), TypeError);
});
