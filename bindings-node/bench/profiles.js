#!/usr/bin/env node
// The hashring-node-3 profile against the npm hashring package it reproduces, in one run.
//
//   node bench/profiles.js                 # N = 5,100
//   HRW_NS=100 HRW_TARGET_S=0.1 node bench/profiles.js
//
// Keys "key-i", nodes "10.0.0.i:11211" (weight 1). hashring.get keeps an LRU cache of 5000 keys;
// every pass here looks up more distinct keys than that, in order, so each get misses and pays
// for the cache update, as it does on a stream of mostly new keys. Each figure is the median ns
// per key of 5 timed passes over K keys, K calibrated so a pass takes ~HRW_TARGET_S.
'use strict';
const HashRing = require('hashring');
const { ProfilePlacement } = require('..');
const { TARGET_S, REPS, KMAX, nodeCounts, medianNsPerKey } = require('./timing');

const NS = nodeCounts('5,100');
const KEYS = Array.from({ length: KMAX }, (_, i) => `key-${i}`);

function timePass(run, k) {
  const t = process.hrtime.bigint();
  run(k);
  return Number(process.hrtime.bigint() - t) / k;
}

function measure(run) {
  return medianNsPerKey((k) => () => timePass(run, k), 8192);
}

console.log(`node ${process.version}, hashring ${HashRing.version}, ${REPS} passes of ~${TARGET_S} s\n`);
console.log('| nodes | call | ns/key | vs hashring.get |');
console.log('| ---: | --- | ---: | ---: |');
for (const n of NS) {
  const ids = Array.from({ length: n }, (_, i) => `10.0.0.${i}:11211`);
  const ring = new HashRing(ids);
  const p = new ProfilePlacement('hashring-node-3', ids);
  // The same answers, or the timings compare different work.
  for (const k of KEYS.slice(0, 2000)) if (ring.get(k) !== p.owner(k)) throw new Error(`disagree on ${k}`);
  const rows = [
    ['hashring.get', (k) => { for (let i = 0; i < k; i++) ring.get(KEYS[i]); }],
    ['hrwhash hashring-node-3 owner()', (k) => { for (let i = 0; i < k; i++) p.owner(KEYS[i]); }],
    ['hrwhash hashring-node-3 owners()', (k) => p.owners(KEYS.slice(0, k))],
  ].map(([name, run]) => [name, measure(run)]);
  const base = rows[0][1];
  for (const [name, ns] of rows) {
    console.log(`| ${n} | ${name} | ${ns.toFixed(0)} | ${name === 'hashring.get' ? '1' : `${(base / ns).toFixed(1)}x faster`} |`);
  }
}
