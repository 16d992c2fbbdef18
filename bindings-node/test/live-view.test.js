// LiveView: every case of ../conformance/live-view.json, then what the cases leave to each
// language (change callbacks, the move deadline, bad arguments).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { LiveView, View, Placement, Transition } = require('hrwhash');

const cases = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', 'live-view.json'), 'utf8'),
);
const load = (doc, seed) => View.fromJson(doc, seed ? { seed } : undefined);

/** The error kind name of a thrown hrwhash error: HRW_STALE_VIEW -> StaleView. */
function kindOf(err) {
  assert.ok(typeof err.code === 'string' && err.code.startsWith('HRW_'), `not an hrwhash error: ${err}`);
  return err.code
    .slice(4)
    .toLowerCase()
    .split('_')
    .map((w) => (w === 'json' ? 'Json' : w[0].toUpperCase() + w.slice(1)))
    .join('');
}

test('the cases of conformance/live-view.json', () => {
  assert.equal(cases.version, 'hrwhash-live-view-v1');
  assert.ok(cases.cases.length >= 9);
  for (const c of cases.cases) {
    const live = new LiveView(load(c.initial, c.seed));
    c.steps.forEach((step, i) => {
      const where = `${c.name}, step ${i}`;
      if ('update' in step) {
        let view = null;
        try {
          view = load(step.update, step.seed ?? c.seed);
        } catch (err) {
          // A document that does not load is a source error: recorded, nothing offered.
          live.reportError(kindOf(err), err.message);
          assert.deepEqual({ error: kindOf(err) }, step.expect, where);
        }
        if (view !== null) {
          let outcome;
          try {
            outcome = live.update(view);
          } catch (err) {
            const got = { error: kindOf(err) };
            if ('epoch' in step.expect) got.epoch = String(err.epoch);
            if ('current' in step.expect) got.current = String(err.current);
            if ('epoch' in step.expect) assert.equal(typeof err.epoch, 'bigint', where);
            outcome = got;
          }
          assert.deepEqual(outcome, step.expect, where);
        }
      } else if ('finish_move' in step) {
        assert.equal(live.finishMove(), step.returns, where);
      } else if ('report_error' in step) {
        live.reportError(step.report_error, 'from the cases');
      } else {
        assert.fail(`${where}: unknown step ${JSON.stringify(step)}`);
      }
      const s = step.state;
      assert.equal(live.epoch, BigInt(s.epoch), where);
      assert.equal(live.fingerprint, s.fingerprint, where);
      assert.equal(live.moving, s.moving, where);
      assert.equal(live.lastError === null ? null : live.lastError.kind, s.last_error, where);
      cases.keys.forEach((key, j) => {
        const r = live.route(key);
        assert.deepEqual([r.read, r.write, r.moved], s.routes[j], `${where}, key ${JSON.stringify(key)}`);
        assert.equal(live.owner(key), r.write, where);
      });
    });
  }
});

const view = (ids, epoch) => new View(new Placement(ids), epoch);
const keys = Array.from({ length: 2000 }, (_, i) => `key-${i}`);

test('callbacks receive the transition previous -> current after the swap', () => {
  const live = new LiveView(view(['a', 'b', 'c'], 1));
  const seen = [];
  live.onChange((t) => {
    assert.ok(t instanceof Transition);
    // Lookups already answer from the new view when the callback runs.
    seen.push({ epoch: live.epoch, moved: keys.filter((k) => t.route(k).moved) });
  });
  assert.equal(live.update(view(['a', 'b', 'c', 'd'], 2)), 'applied');
  assert.equal(live.update(view(['a', 'b', 'c', 'd'], 2)), 'unchanged');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].epoch, 2n);
  const expected = keys.filter((k) => live.route(k).moved);
  assert.deepEqual(seen[0].moved, expected);
  assert.ok(expected.length > 300 && expected.length < 700, `${expected.length} of 2000 moved`);
  for (const k of expected) assert.equal(live.route(k).write, 'd');
});

test('a callback that throws does not stop the others and is recorded', () => {
  const live = new LiveView(view(['a', 'b'], 1));
  let second = 0;
  live.onChange(() => {
    throw new Error('cache warm-up failed');
  });
  live.onChange(() => second++);
  assert.equal(live.update(view(['a', 'b', 'c'], 2)), 'applied');
  assert.equal(second, 1);
  assert.deepEqual(live.lastError, { kind: 'Callback', message: 'cache warm-up failed' });
  assert.equal(live.epoch, 2n);
  // The next accepted update clears it.
  assert.equal(live.update(view(['a', 'b', 'c'], 2)), 'unchanged');
  assert.equal(live.lastError, null);
});

test('a move ends by itself at the move deadline', async () => {
  // A deadline of a second, as the core's test has: on a loaded machine the checks below can
  // take tens of milliseconds to run.
  const live = new LiveView(view(['a', 'b'], 1), { moveDeadline: 1000 });
  const start = Date.now();
  live.update(view(['a', 'b', 'c'], 2));
  assert.equal(live.moving, true);
  assert.ok(keys.some((k) => live.route(k).moved));
  assert.notEqual(live.previous, null);
  await new Promise((r) => setTimeout(r, Math.max(0, start + 1100 - Date.now())));
  assert.equal(live.moving, false);
  assert.equal(live.previous, null);
  assert.ok(keys.every((k) => !live.route(k).moved));
  assert.equal(live.finishMove(), false);
});

test('since update restarts on applied and unchanged updates only', async () => {
  const live = new LiveView(view(['a', 'b'], 3));
  await new Promise((r) => setTimeout(r, 40));
  assert.ok(live.sinceUpdate >= 35, `${live.sinceUpdate}`);
  assert.throws(() => live.update(view(['a'], 2)), { code: 'HRW_STALE_VIEW', epoch: 2n, current: 3n });
  assert.ok(live.sinceUpdate >= 35);
  live.update(view(['a', 'b'], 3));
  assert.ok(live.sinceUpdate < 35, `${live.sinceUpdate}`);
});

test('current and previous are views', () => {
  const first = view(['a', 'b'], 1);
  const live = new LiveView(first);
  assert.equal(live.previous, null);
  live.update(view(['b', 'c'], 9));
  assert.equal(live.current.epoch, 9n);
  assert.equal(live.previous.fingerprint, first.fingerprint);
  assert.equal(live.current.toJson(), view(['b', 'c'], 9).toJson());
});

test('bad arguments are typed errors', () => {
  const v = view(['a'], 1);
  assert.throws(() => new LiveView(), { name: 'TypeError' });
  assert.throws(() => new LiveView(new Placement(['a'])), { name: 'TypeError' });
  assert.throws(() => new LiveView(v, 5), { name: 'TypeError' });
  assert.throws(() => new LiveView(v, { moveDeadLine: 5 }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new LiveView(v, { moveDeadline: -1 }), { code: 'HRW_INVALID_COUNT' });
  assert.throws(() => new LiveView(v, { moveDeadline: 1.5 }), { code: 'HRW_INVALID_COUNT' });
  const live = new LiveView(v);
  assert.throws(() => live.update('{"format": "hrwhash-view-v1"}'), { name: 'TypeError' });
  assert.throws(() => live.update(null), { name: 'TypeError' });
  assert.throws(() => live.onChange('not a function'), { name: 'TypeError' });
  assert.throws(() => live.owner(12), { name: 'TypeError' });
  assert.throws(() => live.reportError('Io'), { name: 'TypeError' });
  assert.throws(() => live.reportError(1, 'x'), { name: 'TypeError' });
  assert.equal(live.epoch, 1n);
  assert.equal(live.lastError, null);
});

test('binary ids come back as Buffers', () => {
  const id = Buffer.from([0xff, 0x00, 0x01]);
  const live = new LiveView(new View(new Placement([id]), 1));
  assert.deepEqual(live.owner('k'), id);
  assert.ok(Buffer.isBuffer(live.route('k').read));
});
