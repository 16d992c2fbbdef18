// Ratios of `hrwhash` to `hrwhash-before` from peer-harness runs (see hrwhash-adapter.js):
//   node bench/harness-ratios.js <results dir>...   (each holding raw/node.out)
// Prints, per op and N, each run's median ns of both builds and their ratio, then the ratios'
// range over the runs.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const runs = process.argv.slice(2).map((dir) => {
  const rows = new Map();
  for (const line of fs.readFileSync(path.join(dir, 'raw', 'node.out'), 'utf8').split('\n')) {
    const f = line.split(',');
    if (f[0] !== 'PERF' || !f[2].startsWith('hrwhash')) continue;
    rows.set(`${f[2]}|${f[4]}|${f[3]}`, Number(f[7]));
  }
  return rows;
});
const cells = new Set();
for (const rows of runs) for (const k of rows.keys()) cells.add(k.split('|').slice(1).join('|'));
const ordered = [...cells].sort((a, b) => {
  const [oa, na] = a.split('|');
  const [ob, nb] = b.split('|');
  return oa === ob ? na - nb : oa < ob ? -1 : 1;
});
console.log('| op | N | ' + runs.map((_, i) => `run ${i + 1} after / before (ratio)`).join(' | ') + ' | ratio range |');
console.log('| --- | --- | ' + runs.map(() => '---').join(' | ') + ' | --- |');
for (const cell of ordered) {
  const [op, n] = cell.split('|');
  const ratios = [];
  const parts = runs.map((rows) => {
    const a = rows.get(`hrwhash|${cell}`);
    const b = rows.get(`hrwhash-before|${cell}`);
    if (a === undefined || b === undefined) return 'n/a';
    ratios.push(a / b);
    return `${a.toFixed(0)} / ${b.toFixed(0)} (${(a / b).toFixed(2)})`;
  });
  const range = ratios.length ? `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}` : 'n/a';
  console.log(`| ${op} | ${n} | ${parts.join(' | ')} | ${range} |`);
}
