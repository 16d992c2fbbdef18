#!/usr/bin/env node
// Transition.diff and Transition.plan against the same answers built from Placement.owners, in one
// run, as ratios (the machine may be shared, so absolute times are only for orientation); and the
// time to load a view of 100,000 nodes.
//
//   node bench/views.js            # K = 500,000 keys
//   HRW_QUICK=1 node bench/views.js
//
// Keys are "key-0", "key-1", ...; the change adds one node to N. "owners x2" is what a caller
// without a transition would do: both placements' owners over the whole batch, then a comparison
// in JS. diff and plan read the keys from the same array (an array is read by index); diff(gen)
// reads them from a generator, through the iterator protocol. Each figure is the median over REPS interleaved passes, in ns per key.
'use strict';
const { Placement, View, Transition } = require('..');

const QUICK = Boolean(process.env.HRW_QUICK);
const K = QUICK ? 50_000 : 500_000;
const REPS = QUICK ? 3 : 7;
const KEYS = Array.from({ length: K }, (_, i) => `key-${i}`);

function* generate() {
  for (const k of KEYS) yield k;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const seconds = (f) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e9;
};

for (const n of [10, 100, 1000]) {
  const old = new Placement(Array.from({ length: n }, (_, i) => `node-${i}`));
  const nu = old.withNode(`node-${n}`);
  const t = new Transition(old, nu);
  const runs = {
    'owners x2': () => {
      const before = old.owners(KEYS);
      const after = nu.owners(KEYS);
      let moved = 0;
      for (let i = 0; i < K; i++) if (before[i] !== after[i]) moved++;
      return moved;
    },
    diff: () => t.diff(KEYS).moved,
    'diff(gen)': () => t.diff(generate()).moved,
    plan: () => {
      let moved = 0;
      for (const _ of t.plan(KEYS)) moved++;
      return moved;
    },
  };
  const times = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  const moved = new Set();
  for (let r = 0; r < REPS; r++) {
    for (const [name, run] of Object.entries(runs)) {
      let m;
      times[name].push((seconds(() => (m = run())) / K) * 1e9);
      moved.add(m);
    }
  }
  if (moved.size !== 1) throw new Error(`the three ways disagree on the moved keys: ${[...moved]}`);
  const base = median(times['owners x2']);
  for (const [name, ts] of Object.entries(times)) {
    const m = median(ts);
    console.log(`N=${String(n).padStart(5)} ${name.padEnd(10)} ${m.toFixed(1).padStart(8)} ns/key  ${(m / base).toFixed(2)}x owners x2`);
  }
}

// A view of 100,000 weighted nodes, loaded from its canonical JSON text.
const big = new View(
  new Placement(Array.from({ length: 100_000 }, (_, i) => ({ id: `node-${i}`, weight: 1 + (i % 7) / 4 }))),
  1n,
);
const text = big.toJson();
const loads = Array.from({ length: REPS }, () => seconds(() => View.fromJson(text)) * 1e3);
const builds = Array.from({ length: REPS }, () => seconds(() => new View(big.placement, 1n)) * 1e3);
console.log(`View.fromJson, 100,000 nodes (${(text.length / 1e6).toFixed(1)} MB): ${median(loads).toFixed(1)} ms`);
console.log(`view.placement + new View, 100,000 nodes:        ${median(builds).toFixed(1)} ms`);
