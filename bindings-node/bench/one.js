// One op in a loop, for callgrind: node --jitless bench/one.js <addon .node> owner|rank3|wowner|none N COUNT
// (the difference of two COUNTs is the cost of the calls; see BENCHMARKS.md).
'use strict';
const P = require(process.argv[2]).Placement;
const [op, n, count] = [process.argv[3], +process.argv[4], +process.argv[5]];
const ids = Array.from({ length: n }, (_, i) => `node-${i}`);
const p = op === 'wowner' ? new P(ids, { weights: ids.map((_, i) => 1 + (i % 4)) }) : new P(ids);
const keys = Array.from({ length: count }, (_, i) => `key-${i}`);
let sink = 0;
const f = op === 'rank3' ? (k) => p.rank(k, 3) : op === 'none' ? (k) => k : (k) => p.owner(k);
for (let i = 0; i < count; i++) sink += f(keys[i]).length;
console.log(sink);
