'use strict';
// Answers the recording protocol (conformance/profiles/record/common.py) with the npm hashring
// package: a HashRing of the node strings with their weights, its defaults otherwise. Each answer
// line is the index of ring.get(key), then the indexes of ring.range(key) (every server, in ring
// order), comma-separated.
const HashRing = require('hashring');

const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
const unhex = (h) => (h === '-' ? '' : Buffer.from(h, 'hex').toString('utf8'));
const out = [];
let at = 0;
while (at < lines.length) {
  const [word, nodes, keys] = lines[at++].split(' ');
  if (word !== 'case') throw new Error(`expected a case line, got ${lines[at - 1]}`);
  const servers = {};
  const index = new Map();
  for (let i = 0; i < +nodes; i++) {
    const [, weight, , id] = lines[at++].split(' ');
    servers[unhex(id)] = { weight: +weight };
    index.set(unhex(id), i);
  }
  const ring = new HashRing(servers);
  for (let k = 0; k < +keys; k++) {
    const key = unhex(lines[at++].split(' ')[1]);
    const range = ring.range(key).map((s) => index.get(s));
    out.push(`${index.get(ring.get(key))} ${range.join(',')}`);
  }
}
process.stdout.write(out.join('\n') + '\n');
