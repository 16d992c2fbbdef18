// The defects of the bad-input contract (conformance/API.md) that this package had, one test each:
// aborts on huge lengths and results, lone surrogates replaced by U+FFFD, receivers without a
// code, options ignored or overridden, detached buffers read as empty keys, checks out of order.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { Placement, keyDigest, nodeDigest, weightToFixed } = require('hrwhash');

const p = new Placement(['a', 'b', 'c']);

function fails(fn, cls, code, details = {}) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof cls, `${err.name}: ${err.message}`);
    assert.equal(err.code, code, err.message);
    for (const [k, v] of Object.entries(details)) assert.deepEqual(err[k], v, `${k}: ${err.message}`);
    return true;
  });
}
const invalidArgument = (fn, details) => fails(fn, TypeError, 'ERR_INVALID_ARG_TYPE', details);
const invalidText = (fn, details) => fails(fn, Error, 'HRW_INVALID_TEXT', details);

/// Runs `script` in a fresh Node with `flags`: an abort there fails this test instead of ending
/// the test runner. The script prints what it found; `want` is what it must print.
function inChild(script, want, flags = []) {
  const prelude = `const { Placement } = require(${JSON.stringify(require.resolve('hrwhash'))});
    const code = (fn) => { try { fn(); return 'returned'; } catch (e) { return e.name + ' ' + e.code + ' ' + e.index; } };`;
  const r = spawnSync(process.execPath, [...flags, '-e', prelude + script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.signal, null, `the child ended by ${r.signal}: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), want);
}

test('an array-like of huge length fails at its first element instead of aborting', () => {
  inChild(
    `console.log(code(() => new Placement(['a']).owners(Object.assign([], { length: 2 ** 32 - 1 }))));
     console.log(code(() => new Placement(['a']).rankMany(Object.assign([], { length: 2 ** 32 - 1 }), 2)));
     console.log(code(() => new Placement(Object.assign([], { length: 2 ** 30 }))));
     console.log(code(() => new Placement(['a'], { weights: Object.assign([], { length: 2 ** 32 - 1 }) })));
     console.log(code(() => new Placement(['a'], { domains: Object.assign([], { length: 2 ** 32 - 1 }) })));`,
    [
      'TypeError ERR_INVALID_ARG_TYPE 0',
      'TypeError ERR_INVALID_ARG_TYPE 0',
      'TypeError ERR_INVALID_ARG_TYPE 0',
      'TypeError ERR_INVALID_ARG_TYPE 0',
      // A hole in the domains is "no domain"; the length then disagrees with the node count.
      'Error HRW_LENGTH_MISMATCH undefined',
    ].join('\n'),
  );
});

test('rankMany of 10^10 ids is HRW_RESULT_TOO_LARGE instead of an 80 GB allocation', () => {
  inChild(
    `const nodes = Array.from({ length: 100000 }, (_, i) => 'node-' + i);
     const keys = Array.from({ length: 100000 }, (_, i) => 'key-' + i);
     console.log(code(() => new Placement(nodes).rankMany(keys, 1e5)));
     console.log(code(() => new Placement(nodes).rankMany(keys, 2 ** 53 - 1)));`,
    'RangeError HRW_RESULT_TOO_LARGE undefined\nRangeError HRW_RESULT_TOO_LARGE undefined',
  );
});

test('rankMany of more ids than the heap can hold is HRW_RESULT_TOO_LARGE, not a heap-out-of-memory abort', () => {
  // 400 keys x 100,000 ids need at least 320 MB of array slots; the child has a 128 MB heap.
  inChild(
    `const nodes = Array.from({ length: 100000 }, (_, i) => 'node-' + i);
     const keys = Array.from({ length: 400 }, (_, i) => 'key-' + i);
     console.log(code(() => new Placement(nodes).rankMany(keys, 1e5)));`,
    'RangeError HRW_RESULT_TOO_LARGE undefined',
    ['--max-old-space-size=128'],
  );
});

test('a result within both limits is answered in full, across the native chunks', () => {
  const nodes = Array.from({ length: 300 }, (_, i) => `n${i}`);
  const q = new Placement(nodes);
  const keys = Array.from({ length: 700 }, (_, i) => `k${i}`);
  const rows = q.rankMany(keys, 300); // 210,000 ids: more than one native chunk of 65,536 slots
  assert.equal(rows.length, 700);
  rows.forEach((row, i) => assert.deepEqual(row, q.rank(keys[i], 300), keys[i]));
});

test('a lone surrogate is HRW_INVALID_TEXT, never U+FFFD', () => {
  invalidText(() => p.owner('k\ud800'), { index: undefined });
  assert.notEqual(p.owner('k\ufffd'), undefined); // U+FFFD itself is text
  invalidText(() => p.ownerIndex('\udc00'));
  invalidText(() => p.rank('x\udfffy', 2));
  invalidText(() => p.replicas('\ud800', 2));
  invalidText(() => p.score('\ud800', 'a'));
  invalidText(() => p.score('k', '\ud800'));
  invalidText(() => p.owners(['a', 'b', 'c\udc00']), { index: 2 });
  invalidText(() => p.rankMany(['\ud800', 'b'], 1), { index: 0 });
  invalidText(() => new Placement(['\ud800', '\udc00']), { index: 0 });
  invalidText(() => new Placement(['a', { id: '\udc00' }]), { index: 1 });
  invalidText(() => new Placement(['a', 'b'], { domains: ['\ud800', '\udc00'] }), { index: 0 });
  invalidText(() => new Placement([{ id: 'a', domain: 'x' }, { id: 'b', domain: '\ud800' }]), { index: 1 });
  invalidText(() => p.withNode('\ud800'));
  invalidText(() => p.withoutNode('\ud800'));
  invalidText(() => p.withWeight('\ud800', 2));
  invalidText(() => keyDigest('\ud800'));
  invalidText(() => nodeDigest('\udc00'));
  // Past the inline key buffer, and with a real U+FFFD before the lone surrogate.
  invalidText(() => p.owner('\ufffd'.repeat(200) + '\ud800'));
  assert.match(
    (() => { try { p.owner('x'.repeat(300) + '\udbff'); } catch (e) { return e.message; } })(),
    /\\udbff at position 300/,
  );
  // Pairs and U+FFFD are well-formed text.
  assert.equal(p.owner('\ud83d\ude00'), p.owner(Buffer.from('\u{1f600}')));
  assert.equal(p.owner('\ufffd'.repeat(300)), p.owner(Buffer.from('\ufffd'.repeat(300))));
});

test('text errors come after every type error and before the lengths', () => {
  invalidArgument(() => new Placement(['\ud800', 5]), { index: 1 });
  invalidArgument(() => new Placement(['\ud800'], { seed: 5 }));
  invalidArgument(() => p.rank('\ud800', true));
  invalidArgument(() => p.rankMany(['\ud800'], '2'));
  invalidText(() => new Placement(['a', '\ud800'], { weights: [1] }), { index: 1 });
});

test('every method and getter on a foreign receiver is ERR_INVALID_ARG_TYPE', () => {
  const proto = Placement.prototype;
  const fakes = [{}, Object.create(proto), new Uint8Array(4)];
  const methods = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor');
  for (const name of methods) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    const fn = d.get ?? d.value;
    for (const fake of fakes) invalidArgument(() => fn.call(fake, 'k', 1));
  }
  assert.ok(methods.includes('replicas') && methods.includes('length') && methods.includes('withNode'));
});

test("every exported class's methods and getters on a foreign receiver are ERR_INVALID_ARG_TYPE", () => {
  const hrwhash = require('hrwhash');
  const view = new hrwhash.View(p, 1n);
  const classes = new Set();
  let checked = 0;
  for (const [className, cls] of Object.entries(hrwhash)) {
    if (typeof cls !== 'function' || !cls.prototype) continue;
    const proto = cls.prototype;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      for (const fn of [d.get, d.set, d.value].filter((f) => typeof f === 'function')) {
        // null, undefined, a number, a plain object, one that only inherits the prototype, and
        // another class's instance.
        const other = className === 'Placement' ? view : p;
        for (const fake of [null, undefined, 7, {}, Object.create(proto), other]) {
          // Placement's own callbacks (src/fast.rs) name no method; every other class's wrapper
          // (main.js) names it, and sees null, undefined and a primitive as they are.
          const what =
            fake === null ? 'null' : typeof fake === 'object' ? `an object that is not a ${className}` : typeof fake;
          const message =
            className === 'Placement'
              ? /^receiver is not a Placement$/
              : new RegExp(`^${className}\\.prototype\\.${name} was called on ${what}$`);
          assert.throws(
            () => fn.call(fake, 'k', 1),
            (err) => err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE' && message.test(err.message),
            `${className}.${name}`,
          );
          checked++;
          classes.add(className);
        }
      }
    }
  }
  // View, Transition, RampPlan, Plan, the policies, profiles and LiveView, not Placement alone.
  assert.ok(checked > 250, `${checked} calls checked`);
  const all = ['View', 'Transition', 'Plan', 'RampPlan', 'SlotTable', 'BoundedLoad', 'Domains', 'ReplicaBalance', 'ProfilePlacement', 'LiveView', 'Placement'];
  assert.deepEqual([...classes].sort(), all.sort());
  // A real receiver still answers, and the checked method keeps its name.
  const v = new hrwhash.View(p, 1n);
  assert.equal(hrwhash.View.prototype.toJson.call(v), v.toJson());
  assert.equal(hrwhash.View.prototype.toJson.name, 'toJson');
});

test('with_node and with_weight errors carry codes, not messages', () => {
  const codeLike = /^(HRW_[A-Z_]+|ERR_INVALID_ARG_TYPE)$/;
  const attempts = [
    () => p.withNode('a'),
    () => p.withNode(''),
    () => p.withNode({ id: 'd', weight: NaN }),
    () => p.withNode({ id: 'd', weight: 'x' }),
    () => p.withNode(5),
    () => p.withWeight('z', 1),
    () => p.withWeight('a', -1),
    () => p.withWeight('a', null),
    () => new Placement(['a']).withWeight('a', 0),
    () => new Placement(['a']).withoutNode('a'),
  ];
  for (const attempt of attempts) {
    assert.throws(attempt, (err) => codeLike.test(err.code) && err.message !== err.code && err.message.length > 10);
  }
});

test("options.weights beside a node's own weight is ERR_INVALID_ARG_TYPE, whatever the values", () => {
  invalidArgument(() => new Placement([{ id: 'a', weight: 2 }, 'b'], { weights: [2, 1] }), { index: 0 });
  invalidArgument(() => new Placement(['a', { id: 'b', weight: 1 }], { weights: [1, 1] }), { index: 1 });
  invalidArgument(() => new Placement(['a', { id: 'b', domain: 'x' }], { domains: ['x', 'x'] }), { index: 1 });
  // Not given (undefined or null) is no conflict.
  const q = new Placement([{ id: 'a', weight: undefined }, { id: 'b', weight: null }], { weights: [2, 3] });
  assert.deepEqual(q.nodes().map((n) => n.weight), [2, 3]);
});

test('an unknown option name is ERR_INVALID_ARG_TYPE', () => {
  for (const name of ['domainz', 'weight', 'Seed', 'domain']) {
    assert.throws(() => new Placement(['a', 'b'], { [name]: ['x', 'y'] }), (err) =>
      err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE' && err.message.includes(name),
    );
  }
  // The options that exist, and domains given as a list.
  const q = new Placement(['a', 'b'], { weights: [1, 2], domains: ['r1', null], seed: null });
  assert.deepEqual(q.nodes().map((n) => [n.weight, n.domain]), [[1, 'r1'], [2, null]]);
});

test('a detached buffer is ERR_INVALID_ARG_TYPE, never an empty key', () => {
  const detached = () => {
    const view = new Uint8Array(new ArrayBuffer(3));
    structuredClone(view.buffer, { transfer: [view.buffer] });
    return view;
  };
  invalidArgument(() => p.owner(detached()));
  invalidArgument(() => p.owners(['a', detached()]), { index: 1 });
  invalidArgument(() => new Placement(['a', detached()]), { index: 1 });
  invalidArgument(() => new Placement(['a'], { seed: detached() }));
  invalidArgument(() => p.ownerIndices(detached(), Uint32Array.of(0)));
  const offsets = Uint32Array.of(0, 1);
  structuredClone(offsets.buffer, { transfer: [offsets.buffer] });
  invalidArgument(() => p.ownerIndices(Buffer.from('a'), offsets));
  // An empty, attached buffer is still the empty key.
  assert.equal(p.owner(new Uint8Array(0)), p.owner(''));
});

test('a seed of the wrong length comes before an invalid weight of a node object (SPEC 7)', () => {
  fails(() => new Placement([{ id: 'a', weight: NaN }], { seed: Buffer.alloc(15) }), Error, 'HRW_INVALID_SEED_LENGTH', { length: 15 });
  fails(() => new Placement([{ id: '', weight: 1 }, { id: 'b', weight: -2 }]), Error, 'HRW_INVALID_WEIGHT', { index: 1 });
});

test('ownerIndices takes Int32Array offsets (Arrow) like Uint32Array ones', () => {
  const keys = ['alpha', '', 'gamma', 'd'];
  const data = Buffer.from(keys.join(''));
  const ends = [0];
  for (const k of keys) ends.push(ends.at(-1) + Buffer.byteLength(k));
  const want = keys.map((k) => p.ownerIndex(k));
  assert.deepEqual(Array.from(p.ownerIndices(data, Int32Array.from(ends))), want);
  assert.deepEqual(Array.from(p.ownerIndices(data, Uint32Array.from(ends))), want);
  // An Arrow slice: offsets that start past 0.
  assert.deepEqual(Array.from(p.ownerIndices(data, Int32Array.from(ends.slice(2)))), want.slice(2));
  invalidArgument(() => p.ownerIndices(data, Int32Array.of(-1, 2)), { index: 0 });
  invalidArgument(() => p.ownerIndices(data, Int32Array.of(0, 3, 2)), { index: 2 });
  invalidArgument(() => p.ownerIndices(data, Int32Array.of(0, data.length + 1)), { index: 1 });
  invalidArgument(() => p.ownerIndices(data, Int32Array.of(-5)), { index: 0 });
});

test('messages name the position and the value, not a rule the value meets', () => {
  const message = (fn) => { try { fn(); } catch (e) { return e.message; } };
  const tiny = message(() => new Placement(['a', 'b'], { weights: [1, 1e-12] }));
  assert.match(tiny, /options\.weights\[1\] = 1e-12/);
  assert.match(tiny, /rounds to 0/);
  assert.doesNotMatch(tiny, />= 2\^-33/);
  assert.match(message(() => new Placement(['a', { id: 'b', weight: -3 }])), /nodes\[1\]\.weight = -3 .*negative/);
  assert.match(message(() => p.rank('k', 1.5)), /k = 1\.5 .*not an integer/);
  assert.match(message(() => p.owners(['a', 5])), /keys\[1\] is the number 5/);
  assert.match(message(() => weightToFixed(2 ** 32)), /weight = 4294967296 .*2\^32 or more/);
});
