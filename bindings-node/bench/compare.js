#!/usr/bin/env node
// hrwhash against Node peers in one run: skeleton-rendezvous, hashring (ketama ring), a plain
// node:crypto HRW, and hrwhash single-key and batch lookups; plus the Rust core's batch cost on the
// same workload, and how many keys each moves when a 101st node joins 100.
//
//   node bench/compare.js                  # N = 5,100,1000
//   HRW_NS=100 HRW_TARGET_S=0.1 node bench/compare.js
//
// Workload (as in the shared peer harness): keys "key-i", nodes "node-i". Each figure is the
// median ns per key of 5 timed passes over K keys, K calibrated so a pass takes ~HRW_TARGET_S.
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const HashRing = require('hashring');
const Skeleton = require('skeleton-rendezvous');
const { Placement } = require('..');
const { TARGET_S, REPS, nodeCounts, medianNsPerKey } = require('./timing');

const NS = nodeCounts('5,100,1000');

const nodeIds = (n) => Array.from({ length: n }, (_, i) => `node-${i}`);
const keyList = (k) => Array.from({ length: k }, (_, i) => `key-${i}`);

// The blog-post HRW with node:crypto (same as the shared harness's plain-sha256 baseline).
function plainCrypto(nodes) {
  const score = (n, k) => crypto.createHash('sha256').update(`${n}:${k}`).digest().readUIntBE(0, 6);
  return (k) => {
    let best = nodes[0];
    let bs = -1;
    for (const n of nodes) {
      const s = score(n, k);
      if (s > bs) {
        bs = s;
        best = n;
      }
    }
    return best;
  };
}

function packed(keys) {
  const bufs = keys.map((k) => Buffer.from(k));
  const offsets = new Uint32Array(bufs.length + 1);
  bufs.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length));
  return { data: Buffer.concat(bufs), offsets };
}

// name -> (nodes) -> { perKey?(key), batch?(keys, prepared) , prepare?(keys) }
const LIBS = {
  'skeleton-rendezvous': (nodes) => {
    const h = new Skeleton({ sites: nodes.slice() });
    return { perKey: (k) => h.findSite(k) };
  },
  'hashring (ketama)': (nodes) => {
    const r = new HashRing(nodes.slice());
    return { perKey: (k) => r.get(k) };
  },
  'plain node:crypto HRW': (nodes) => ({ perKey: plainCrypto(nodes) }),
  'hrwhash owner()': (nodes) => {
    const p = new Placement(nodes);
    return { perKey: (k) => p.owner(k) };
  },
  'hrwhash owner(Buffer)': (nodes) => {
    const p = new Placement(nodes);
    return { prepare: (keys) => keys.map((k) => Buffer.from(k)), batch: (keys) => { let x; for (const k of keys) x = p.owner(k); return x; } };
  },
  'hrwhash owners([...])': (nodes) => {
    const p = new Placement(nodes);
    return { batch: (keys) => p.owners(keys) };
  },
  'hrwhash ownerIndices()': (nodes) => {
    const p = new Placement(nodes);
    return { prepare: packed, batch: (_keys, pk) => p.ownerIndices(pk.data, pk.offsets) };
  },
};

function timePass(lib, keys, prepared) {
  const t = process.hrtime.bigint();
  let sink;
  if (lib.batch) sink = lib.batch(prepared === undefined ? keys : prepared, prepared);
  else for (let i = 0; i < keys.length; i++) sink = lib.perKey(keys[i]);
  const ns = Number(process.hrtime.bigint() - t);
  if (sink === undefined) throw new Error('no result');
  return ns / keys.length;
}

function measure(lib) {
  return medianNsPerKey((k) => {
    const keys = keyList(k);
    const prepared = lib.prepare?.(keys);
    return () => timePass(lib, keys, prepared);
  }, 16);
}

function movedPct(make) {
  const keys = keyList(2000);
  const a = make(nodeIds(100));
  const b = make(nodeIds(101));
  const owner = (lib, k) => (lib.perKey ? lib.perKey(k) : lib.batch([k])[0]);
  const moved = keys.filter((k) => owner(a, k) !== owner(b, k)).length;
  return (100 * moved) / keys.length;
}

function coreNs() {
  try {
    const out = execFileSync(
      'cargo',
      ['run', '--quiet', '--release', '-p', 'hrwhash-node', '--example', 'core-owners', '--', NS.join(',')],
      { cwd: path.join(__dirname, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    return new Map(out.trim().split('\n').map((l) => l.split(',')).map(([, n, ns]) => [Number(n), Number(ns)]));
  } catch (e) {
    console.error(`Rust core timing unavailable: ${e.message}`);
    return new Map();
  }
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);

const core = coreNs();
const results = {};
for (const [name, make] of Object.entries(LIBS)) {
  results[name] = {};
  for (const n of NS) results[name][n] = measure(make(nodeIds(n)));
}
const moved = Object.fromEntries(
  ['skeleton-rendezvous', 'hashring (ketama)', 'plain node:crypto HRW', 'hrwhash owner()'].map((name) => [name, movedPct(LIBS[name])]),
);

console.log(`node ${process.version}, ${process.platform}-${process.arch}; median ns per key of ${REPS} passes (~${TARGET_S} s each)\n`);
const head = ['library', ...NS.map((n) => `N=${n}`), 'moved 100→101'];
const rows = [head, head.map((h) => '-'.repeat(h.length))];
for (const name of Object.keys(LIBS)) {
  rows.push([name, ...NS.map((n) => fmt(results[name][n])), moved[name] === undefined ? '' : `${moved[name].toFixed(2)}%`]);
}
if (core.size) rows.push(['Rust core owners_into (reference)', ...NS.map((n) => (core.has(n) ? fmt(core.get(n)) : '-')), '']);
const width = head.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const r of rows) console.log('| ' + r.map((c, i) => String(c).padEnd(width[i])).join(' | ') + ' |');

console.log('\nratios (peer time / hrwhash owner() time; > 1 means hrwhash is faster):');
for (const peer of ['skeleton-rendezvous', 'hashring (ketama)', 'plain node:crypto HRW']) {
  console.log(`  ${peer}: ` + NS.map((n) => `N=${n} ${(results[peer][n] / results['hrwhash owner()'][n]).toFixed(1)}x`).join(', '));
}
if (core.size) {
  console.log('\nbatch overhead vs the Rust core (target: batch <= 1.5 x core + 150 ns):');
  for (const name of ['hrwhash owners([...])', 'hrwhash ownerIndices()']) {
    console.log(
      `  ${name}: ` +
        NS.filter((n) => core.has(n))
          .map((n) => `N=${n} ${fmt(results[name][n])} vs ${fmt(1.5 * core.get(n) + 150)} budget`)
          .join(', '),
    );
  }
}
