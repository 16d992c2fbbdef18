// Same-process A/B of two builds of the package: node bench/ab.js <base main.js> <new main.js>
// (ROUNDS=n rounds of 65536 keys, alternating which build goes first; median ns per call;
// HRW_NS=5,100 picks the node counts).
'use strict';
const { nodeCounts } = require('./timing');
const A = require(process.argv[2]);
const B = require(process.argv[3]);
const K = 1 << 16, ROUNDS = +(process.env.ROUNDS || 15);
const keys = Array.from({ length: K }, (_, i) => `key-${i}`);
const cases = [];
for (const n of nodeCounts('5,100,1000,10000')) {
  const ids = Array.from({ length: n }, (_, i) => `node-${i}`);
  const w = ids.map((_, i) => 1 + (i % 4));
  cases.push([`owner N=${n}`, ({ Placement: P }) => { const p = new P(ids); return (k) => p.owner(k); }]);
  cases.push([`rank3 N=${n}`, ({ Placement: P }) => { const p = new P(ids); return (k) => p.rank(k, 3); }]);
  cases.push([`wowner N=${n}`, ({ Placement: P }) => { const p = new P(ids, { weights: w }); return (k) => p.owner(k); }]);
  // Other classes' methods and getters (a getter's answer is made a string for the loop's sink).
  const table = (M) => new M.SlotTable(new M.Placement(ids), 1024);
  cases.push([`slot owner N=${n}`, (M) => { const t = table(M); return (k) => t.owner(k); }]);
  cases.push([`slot slot N=${n}`, (M) => { const t = table(M); return (k) => String(t.slot(k)); }]);
  cases.push([`view epoch N=${n}`, (M) => { const v = new M.View(new M.Placement(ids), 7n); return () => String(v.epoch); }]);
}
cases.push([`empty-fn`, () => (k) => k]);
function time(f) {
  let sink = 0;
  const t = process.hrtime.bigint();
  for (let i = 0; i < K; i++) { const r = f(keys[i]); sink += r.length; }
  return [Number(process.hrtime.bigint() - t) / K, sink];
}
const med = (a) => { a = a.slice().sort((x, y) => x - y); return a[a.length >> 1]; };
for (const [name, mk] of cases) {
  const fa = mk(A), fb = mk(B);
  time(fa); time(fb);
  const ta = [], tb = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r & 1) { tb.push(time(fb)[0]); ta.push(time(fa)[0]); } else { ta.push(time(fa)[0]); tb.push(time(fb)[0]); }
  }
  console.log(`${name.padEnd(20)} base ${med(ta).toFixed(1).padStart(7)}  new ${med(tb).toFixed(1).padStart(7)}  new/base ${(med(tb) / med(ta)).toFixed(2)}  (min ${Math.min(...ta).toFixed(1)} / ${Math.min(...tb).toFixed(1)})`);
}
