// A Placement per worker thread: the addon loads in every thread, answers agree with the main
// thread, and a worker that is terminated mid-lookup or exits leaves the process healthy.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Worker } = require('node:worker_threads');
const { Placement } = require('hrwhash');

const NODES = Array.from({ length: 100 }, (_, i) => `node-${i}`);
const KEYS = Array.from({ length: 5000 }, (_, i) => `key-${i}`);

const workerSource = `
  const { parentPort, workerData } = require('node:worker_threads');
  const { Placement } = require(workerData.module);
  const p = new Placement(workerData.nodes, { weights: workerData.nodes.map((_, i) => 1 + (i % 4)) });
  const single = workerData.keys.map((k) => p.owner(k));
  const batch = p.owners(workerData.keys);
  parentPort.postMessage({ single, batch, ranks: workerData.keys.slice(0, 100).map((k) => p.rank(k, 3)) });
  if (workerData.spin) for (;;) p.owners(workerData.keys);
`;

function run(spin) {
  return new Worker(workerSource, {
    eval: true,
    workerData: { module: require.resolve('hrwhash'), nodes: NODES, keys: KEYS, spin },
  });
}

test('worker threads compute the same placement as the main thread', async () => {
  const p = new Placement(NODES, { weights: NODES.map((_, i) => 1 + (i % 4)) });
  const want = KEYS.map((k) => p.owner(k));
  const results = await Promise.all(
    Array.from({ length: 4 }, () => {
      const w = run(false);
      return new Promise((resolve, reject) => {
        let msg;
        w.on('message', (m) => (msg = m));
        w.on('error', reject);
        w.on('exit', (code) => (code === 0 ? resolve(msg) : reject(new Error(`worker exited with ${code}`))));
      });
    }),
  );
  for (const r of results) {
    assert.deepEqual(r.single, want);
    assert.deepEqual(r.batch, want);
    assert.deepEqual(r.ranks, KEYS.slice(0, 100).map((k) => p.rank(k, 3)));
  }
});

test('terminating busy workers does not disturb the process', async () => {
  for (let round = 0; round < 3; round++) {
    const workers = Array.from({ length: 3 }, () => run(true));
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    const codes = await Promise.all(workers.map((w) => w.terminate()));
    assert.deepEqual(codes, [1, 1, 1]);
  }
  const p = new Placement(NODES);
  assert.equal(p.owners(KEYS).length, KEYS.length);
});
