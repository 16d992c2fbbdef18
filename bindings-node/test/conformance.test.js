// Every case of ../conformance/vectors.json and ../conformance/vectors-edge.json, through the
// public API, with ids and keys as bytes and (where they are valid UTF-8) again as strings.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Placement, ALGORITHM, DEFAULT_SEED, keyDigest, nodeDigest, score, draw } = require('hrwhash');

const read = (file) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'conformance', file), 'utf8'));
/** Both files, in the same format and with the same default seed, as one list per section. */
function bothFiles() {
  const [main, edge] = [read('vectors.json'), read('vectors-edge.json')];
  assert.equal(edge.algorithm, main.algorithm);
  assert.equal(edge.default_seed, main.default_seed);
  edge.cases.forEach((c) => (c.name = `edge:${c.name}`));
  edge.error_cases.forEach((c) => (c.name = `edge:${c.name}`));
  for (const section of ['cases', 'draw_cases', 'weight_cases', 'error_cases']) main[section].push(...edge[section]);
  return main;
}
const vectors = bothFiles();
const hex = (s) => Buffer.from(s, 'hex');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text a byte string is the UTF-8 of, or null when it is not valid UTF-8. */
function asText(bytes) {
  try {
    const s = utf8.decode(bytes);
    return Buffer.from(s, 'utf8').equals(bytes) ? s : null;
  } catch {
    return null;
  }
}

function vectorWeight(w) {
  return { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }[w] ?? w;
}

/** The membership of a case as NodeSpec objects with Buffer ids. */
function specs(c) {
  if (c.nodes) {
    return c.nodes.map((n) => {
      const spec = { id: hex(n.id) };
      if (n.weight !== undefined) spec.weight = vectorWeight(n.weight);
      if (n.domain !== undefined) spec.domain = hex(n.domain);
      return spec;
    });
  }
  const prefix = hex(c.node_prefix);
  return Array.from({ length: c.node_count }, (_, i) => {
    const spec = { id: Buffer.concat([prefix, Buffer.from(String(i), 'ascii')]) };
    if (c.weight_cycle) spec.weight = c.weight_cycle[i % c.weight_cycle.length];
    return spec;
  });
}

const options = (c) => (c.seed !== undefined ? { seed: hex(c.seed) } : {});
const codeOf = (variant) => 'HRW_' + variant.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

test('constants match the vectors', () => {
  assert.equal(ALGORITHM, vectors.algorithm);
  assert.equal(DEFAULT_SEED, vectors.default_seed);
});

test('every case, with binary ids and keys', () => {
  assert.ok(vectors.cases.length > 0);
  let withScores = 0;
  let withReplicas = 0;
  for (const c of vectors.cases) {
    const nodes = specs(c);
    const p = new Placement(nodes, options(c));
    const key = hex(c.key);
    const e = c.expected;
    const indexOf = new Map(nodes.map((n, i) => [n.id.toString('hex'), i]));
    const indices = (ids) => ids.map((id) => {
      assert.ok(Buffer.isBuffer(id), `${c.name}: binary ids come back as Buffers`);
      return indexOf.get(id.toString('hex'));
    });
    const seed = c.seed ?? vectors.default_seed;

    assert.equal(keyDigest(key, seed), BigInt(e.key_digest), `${c.name}: key_digest`);
    assert.equal(p.ownerIndex(key), e.owner, `${c.name}: ownerIndex`);
    assert.deepEqual(indices([p.owner(key)]), [e.owner], `${c.name}: owner`);
    assert.deepEqual(indices(p.rank(key, c.k)), e.rank, `${c.name}: rank`);
    if (e.replicas) {
      withReplicas++;
      assert.deepEqual(indices(p.replicas(key, c.k)), e.replicas, `${c.name}: replicas`);
    }
    if (e.scores) {
      withScores++;
      nodes.forEach((n, i) => {
        assert.equal(nodeDigest(n.id, hex(seed)), BigInt(e.node_digests[i]), `${c.name}: node_digests[${i}]`);
        assert.equal(p.score(key, n.id), BigInt(e.scores[i]), `${c.name}: scores[${i}]`);
        assert.equal(score(BigInt(e.key_digest), BigInt(e.node_digests[i])), BigInt(e.scores[i]),
          `${c.name}: score(key_digest, node_digests[${i}])`);
      });
    }
  }
  assert.ok(withScores > 0 && withReplicas > 0, 'the vectors exercise scores and replicas');
});

test('every case with text ids and keys, where they are UTF-8', () => {
  let ran = 0;
  for (const c of vectors.cases) {
    const nodes = specs(c);
    const ids = nodes.map((n) => asText(n.id));
    const key = asText(hex(c.key));
    if (key === null || ids.includes(null)) continue;
    const p = new Placement(nodes.map((n, i) => ({ ...n, id: ids[i] })), options(c));
    assert.equal(p.owner(key), ids[c.expected.owner], `${c.name}: owner`);
    assert.deepEqual(p.rank(key, c.k), c.expected.rank.map((i) => ids[i]), `${c.name}: rank`);
    ran++;
  }
  assert.ok(ran > vectors.cases.length / 2, `${ran} text cases`);
});

test('batch lookups agree with the vectors', () => {
  // Group the cases by membership so each batch spans many keys.
  const groups = new Map();
  for (const c of vectors.cases) {
    const id = JSON.stringify([c.nodes ?? [c.node_prefix, c.node_count, c.weight_cycle], c.seed]);
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push(c);
  }
  for (const cases of groups.values()) {
    const nodes = specs(cases[0]);
    const p = new Placement(nodes, options(cases[0]));
    const indexOf = new Map(nodes.map((n, i) => [n.id.toString('hex'), i]));
    const keys = cases.map((c) => hex(c.key));
    assert.deepEqual(
      p.owners(keys).map((id) => indexOf.get(id.toString('hex'))),
      cases.map((c) => c.expected.owner),
    );
    const k = Math.max(...cases.map((c) => c.k));
    const rows = p.rankMany(keys, k);
    cases.forEach((c, i) => {
      const want = c.expected.rank.slice(0, Math.min(c.k, k));
      assert.deepEqual(rows[i].slice(0, c.k).map((id) => indexOf.get(id.toString('hex'))), want, c.name);
    });
    const offsets = new Uint32Array(keys.length + 1);
    keys.forEach((key, i) => (offsets[i + 1] = offsets[i] + key.length));
    assert.deepEqual(Array.from(p.ownerIndices(Buffer.concat(keys), offsets)), cases.map((c) => c.expected.owner));
  }
});

test('draw cases', () => {
  assert.ok(vectors.draw_cases.length > 0);
  for (const d of vectors.draw_cases) assert.equal(draw(BigInt(d.score)), BigInt(d.draw), d.score);
});

test('weight cases', () => {
  assert.ok(vectors.weight_cases.length > 0);
  for (const w of vectors.weight_cases) {
    const weight = vectorWeight(w.weight);
    // A second node keeps weight 0 from being AllWeightsZero.
    const build = () => new Placement([{ id: 'w', weight }, 'other']);
    if (w.error) {
      assert.throws(build, { code: codeOf(w.error) }, String(w.weight));
    } else {
      assert.equal(build().nodes()[0].weightFixed, BigInt(w.fixed), String(w.weight));
    }
  }
});

test('error cases', () => {
  assert.ok(vectors.error_cases.length > 0);
  for (const c of vectors.error_cases) {
    assert.throws(
      () => new Placement(specs(c), options(c)),
      (err) => err instanceof Error && err.code === codeOf(c.error) && err.message.length > 0,
      c.name,
    );
  }
});
