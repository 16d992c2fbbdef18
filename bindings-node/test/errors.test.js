// Every core error variant has its own code; wrong argument types are TypeErrors; nothing that a
// caller passes may crash the process.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Placement, keyDigest, nodeDigest, draw } = require('hrwhash');
const { hasCode, typeError } = require('./helpers');

const p = new Placement(['a', 'b', 'c']);

const throwsCode = (fn, code, extra = {}) => assert.throws(fn, hasCode(code, extra));

const invalidCount = (fn) => assert.throws(fn, (err) => err instanceof RangeError && err.code === 'HRW_INVALID_COUNT');

test('HRW_EMPTY_MEMBERSHIP', () => throwsCode(() => new Placement([]), 'HRW_EMPTY_MEMBERSHIP'));

test('HRW_EMPTY_NODE_ID carries the index', () => {
  throwsCode(() => new Placement(['a', '']), 'HRW_EMPTY_NODE_ID', { index: 1 });
  throwsCode(() => new Placement([new Uint8Array(0)]), 'HRW_EMPTY_NODE_ID', { index: 0 });
});

test('HRW_DUPLICATE_NODE_ID carries both indices, across text and bytes', () => {
  throwsCode(() => new Placement(['a', 'b', 'a']), 'HRW_DUPLICATE_NODE_ID', { index: 2, firstIndex: 0 });
  throwsCode(() => new Placement(['a', Buffer.from('a')]), 'HRW_DUPLICATE_NODE_ID', { index: 1, firstIndex: 0 });
  throwsCode(() => p.withNode('b'), 'HRW_DUPLICATE_NODE_ID');
});

test('HRW_INVALID_WEIGHT carries the value and the node index', () => {
  for (const w of [NaN, Infinity, -Infinity, -1, 2 ** 32, 2 ** -40]) {
    throwsCode(() => new Placement(['z', { id: 'a', weight: w }]), 'HRW_INVALID_WEIGHT', { value: w, index: 1 });
    throwsCode(() => new Placement(['a', 'z'], { weights: [w, 1] }), 'HRW_INVALID_WEIGHT', { value: w, index: 0 });
    throwsCode(() => p.withWeight('b', w), 'HRW_INVALID_WEIGHT', { value: w, index: 1 });
    throwsCode(() => p.withNode({ id: 'd', weight: w }), 'HRW_INVALID_WEIGHT', { value: w, index: 3 });
  }
});

test('HRW_ALL_WEIGHTS_ZERO', () => {
  throwsCode(() => new Placement(['a', 'b'], { weights: [0, 0] }), 'HRW_ALL_WEIGHTS_ZERO');
  throwsCode(() => new Placement(['a']).withWeight('a', 0), 'HRW_ALL_WEIGHTS_ZERO');
});

test('HRW_INVALID_SEED_LENGTH carries the length', () => {
  throwsCode(() => new Placement(['a'], { seed: new Uint8Array(15) }), 'HRW_INVALID_SEED_LENGTH', { length: 15 });
  throwsCode(() => new Placement(['a'], { seed: '00' }), 'HRW_INVALID_SEED_LENGTH', { length: 1 });
  throwsCode(() => keyDigest('k', new Uint8Array(17)), 'HRW_INVALID_SEED_LENGTH', { length: 17 });
});

test('HRW_LENGTH_MISMATCH', () => {
  throwsCode(() => new Placement(['a', 'b'], { weights: [1] }), 'HRW_LENGTH_MISMATCH', { expected: 2, actual: 1 });
});

test('HRW_UNKNOWN_NODE', () => {
  throwsCode(() => p.withoutNode('zz'), 'HRW_UNKNOWN_NODE');
  throwsCode(() => p.withWeight(Buffer.from('zz'), 2), 'HRW_UNKNOWN_NODE');
  throwsCode(() => p.score('key', 'zz'), 'HRW_UNKNOWN_NODE');
});

test('a seed string that is not hex is a TypeError', () => {
  assert.throws(() => new Placement(['a'], { seed: 'not hex at all!!' }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
});

test('wrong argument types are TypeErrors', () => {
  const bad = [undefined, null, 1, 1n, true, {}, [], Symbol('s'), () => 1, new Uint16Array(2), new ArrayBuffer(2), new DataView(new ArrayBuffer(1))];
  for (const v of bad) {
    typeError(() => p.owner(v));
    typeError(() => p.ownerIndex(v));
    typeError(() => p.rank(v, 1));
    typeError(() => p.replicas(v, 1));
    typeError(() => p.score(v, 'a'));
    typeError(() => p.score('k', v));
    typeError(() => p.owners([v]));
    typeError(() => p.rankMany(['k', v], 2));
    typeError(() => new Placement([v]));
    typeError(() => new Placement([{ id: v }]));
    typeError(() => p.withNode(v));
    typeError(() => p.withoutNode(v));
    typeError(() => keyDigest(v));
    typeError(() => nodeDigest(v));
  }
  typeError(() => p.owner());
  typeError(() => new Placement());
  typeError(() => new Placement('abc'));
  typeError(() => new Placement(['a'], 5));
  typeError(() => new Placement(['a'], { weights: 'x' }));
  typeError(() => new Placement(['a'], { weights: ['1'] }));
  typeError(() => new Placement([{ id: 'a', weight: '2' }]));
  typeError(() => new Placement([{ id: 'a', domain: 7 }]));
  typeError(() => new Placement(['a'], { seed: 5 }));
  typeError(() => p.owners('abc'));
  typeError(() => p.owners(new Set(['a'])));
  typeError(() => p.rank('k', '2'));
  typeError(() => p.rank('k'));
  typeError(() => p.withWeight('a', '2'));
  typeError(() => p.ownerIndices('abc', new Uint32Array(1)));
  typeError(() => p.ownerIndices(Buffer.alloc(1), [0, 1]));
  typeError(() => p.ownerIndices(Buffer.alloc(1), new Int16Array(2)));
  typeError(() => p.ownerIndices(Buffer.alloc(1), new BigInt64Array(2)));
  typeError(() => draw(5));
});

test('counts that are not integers from 0 to 2^53 - 1 are RangeErrors', () => {
  for (const k of [-1, -0.5, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 64]) {
    invalidCount(() => p.rank('k', k));
    invalidCount(() => p.replicas('k', k));
    invalidCount(() => p.rankMany(['k'], k));
  }
  for (const k of [2 ** 32, 2 ** 53 - 1]) {
    assert.equal(p.rank('k', k).length, 3);
    assert.equal(p.replicas('k', k).length, 3);
    assert.deepEqual(p.rankMany(['k'], k).map((r) => r.length), [3]);
  }
});

test('offsets and scores out of range are TypeErrors naming the offset', () => {
  const at = (fn, index) => assert.throws(fn, (err) => err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE' && err.index === index);
  typeError(() => p.ownerIndices(Buffer.alloc(4), new Uint32Array(0)));
  at(() => p.ownerIndices(Buffer.alloc(4), Uint32Array.of(0, 5)), 1);
  at(() => p.ownerIndices(Buffer.alloc(4), Uint32Array.of(0, 3, 1)), 2);
  at(() => p.ownerIndices(Buffer.alloc(4), Uint32Array.of(5)), 0);
  typeError(() => draw(-1n));
  typeError(() => draw(2n ** 64n));
});

test('a throwing getter in an argument propagates its own error', () => {
  const keys = ['a'];
  Object.defineProperty(keys, 1, { get() { throw new Error('boom'); }, enumerable: true });
  assert.throws(() => p.owners(keys), { message: 'boom' });
  const nodes = ['x'];
  Object.defineProperty(nodes, 1, { get() { throw new Error('bang'); }, enumerable: true });
  assert.throws(() => new Placement(nodes), { message: 'bang' });
  const spec = { get id() { throw new Error('pow'); } };
  assert.throws(() => new Placement([spec]), { message: 'pow' });
  const opts = { get seed() { throw new Error('zap'); } };
  assert.throws(() => new Placement(['a'], opts), { message: 'zap' });
});

test('a getter that detaches an earlier key cannot corrupt a batch', () => {
  const ab = new ArrayBuffer(8);
  const first = new Uint8Array(ab);
  first.fill(7);
  const want = p.owner(Buffer.alloc(8, 7));
  const keys = [first];
  Object.defineProperty(keys, 1, {
    get() {
      structuredClone(ab, { transfer: [ab] }); // detaches `first`
      return 'second';
    },
    enumerable: true,
  });
  assert.deepEqual(p.owners(keys), [want, p.owner('second')]);
});

test('odd but valid inputs work', () => {
  assert.ok(['a', 'b', 'c'].includes(p.owner('')));
  assert.deepEqual(p.rank('k', 0), []);
  assert.equal(p.rank('k', 1000).length, 3);
  assert.deepEqual(p.owners([]), []);
  assert.deepEqual(p.rankMany([], 3), []);
  assert.deepEqual(p.rankMany(['x', 'y'], 0), [[], []]);
  assert.deepEqual(Array.from(p.ownerIndices(Buffer.alloc(0), Uint32Array.of(0))), []);
  const big = 'x'.repeat(1 << 20);
  assert.equal(p.owner(big), p.owner(Buffer.from(big)));
  // U+FFFD written by the caller is text like any other (only a lone surrogate is refused).
  assert.equal(p.owner('\ufffd'), p.owner(Buffer.from('\ufffd')));
  const odd = new Placement(['\ufffdx', '\ud83d\ude00']);
  assert.equal(odd.owner('k'), odd.nodes()[odd.ownerIndex('k')].id);
  assert.deepEqual(odd.rank('k', 2).sort(), ['\ufffdx', '\ud83d\ude00'].sort());
  // A string just around the inline key buffer's size.
  for (let n = 240; n < 270; n++) {
    const s = 'é'.repeat(n >> 1) + 'z'.repeat(n & 1);
    assert.equal(p.owner(s), p.owner(Buffer.from(s)), `length ${n}`);
  }
  // A Uint8Array view into the middle of a larger buffer hashes only its own bytes.
  const backing = Buffer.from('xxkeyxx');
  assert.equal(p.owner(new Uint8Array(backing.buffer, backing.byteOffset + 2, 3)), p.owner('key'));
  // Sparse arrays: a hole is undefined, which is not a key.
  typeError(() => p.owners([, 'a'])); // eslint-disable-line no-sparse-arrays
});

test('methods called on something that is not a Placement throw TypeError', () => {
  const fakes = [{}, Object.create(Placement.prototype), null, undefined, 5, new Uint8Array(4)];
  for (const name of ['owner', 'ownerIndex', 'rank', 'replicas', 'owners', 'score', 'nodes', 'withNode']) {
    for (const fake of fakes) {
      assert.throws(() => Placement.prototype[name].call(fake, 'k', 1), TypeError, `${name} on ${String(fake)}`);
    }
  }
  assert.throws(() => Placement.prototype.owner.call(new (class extends Placement {})(['a']).nodes(), 'k'), TypeError);
  // Subclass instances are Placements.
  class Sub extends Placement {}
  assert.equal(new Sub(['a', 'b']).owner('k'), p.withoutNode('c').owner('k'));
});

test('the lookups are ordinary non-enumerable methods', () => {
  for (const name of ['owner', 'ownerIndex', 'rank']) {
    const d = Object.getOwnPropertyDescriptor(Placement.prototype, name);
    assert.equal(typeof d.value, 'function');
    assert.equal(d.enumerable, false);
    assert.equal(d.value.name, name);
  }
  assert.deepEqual(Object.keys(p), []);
});

test('placements created and collected in bulk keep answering for themselves', () => {
  // Exercises the per-placement receiver check cache across garbage collections that free and
  // reuse addresses.
  const script = `
    const assert = require('node:assert/strict');
    const { Placement } = require(${JSON.stringify(require.resolve('hrwhash'))});
    const members = (i) => ['a' + (i % 7), 'b' + (i % 5), 'c'];
    const reference = Array.from({ length: 35 }, (_, i) => new Placement(members(i)));
    for (let i = 0; i < 3000; i++) {
      const p = new Placement(members(i));
      const key = 'key-' + (i % 11);
      assert.equal(p.owner(key), reference[i % 35].owner(key));
      if (i % 250 === 0) globalThis.gc();
    }
    assert.throws(() => Placement.prototype.owner.call({}, 'k'), TypeError);
    process.stdout.write('done');
  `;
  const out = require('node:child_process').execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(out, 'done');
});

// The error table (conformance/errors.json) against what the package declares and throws.
test('HrwErrorCode lists every code of the error table and every code the addon can throw', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const root = path.join(__dirname, '..');
  const table = JSON.parse(fs.readFileSync(path.join(root, '..', 'conformance', 'errors.json'), 'utf8'));
  const dts = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8');
  const union = dts.slice(dts.indexOf('export type HrwErrorCode ='));
  const declared = new Set(union.slice(0, union.indexOf('\n\n')).match(/'[A-Z_]+'/g).map((c) => c.slice(1, -1)));
  const kinds = table.kinds.filter((k) => k.scope !== 'c');
  for (const k of kinds) {
    const code = k.node_code ?? `HRW_${k.name.replace(/(?<=.)([A-Z])/g, '_$1').toUpperCase()}`;
    assert.ok(declared.has(code), `${k.name}: ${code} is not in HrwErrorCode`);
  }
  // Every code literal of the addon's sources, the generated mapping included.
  const src = path.join(root, 'src');
  for (const file of fs.readdirSync(src).filter((f) => f.endsWith('.rs'))) {
    for (const m of fs.readFileSync(path.join(src, file), 'utf8').matchAll(/"((?:HRW|ERR)_[A-Z_]+)"/g)) {
      assert.ok(declared.has(m[1]), `${file} throws ${m[1]}, which HrwErrorCode does not list`);
    }
  }
  assert.equal(declared.size, kinds.length + 2, 'one code per kind, ERR_NAPI and HRW_ERROR');
});
