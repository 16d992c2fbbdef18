#!/usr/bin/env node
// A follower for the multi-process live view test (live/tests/followers.py): follows a view in
// etcd (--etcd URL --key KEY) or in a file (--file PATH) and prints one JSON line per event:
// every applied view with the SHA-256 of its owners of the keys in --keys FILE (each owner id in
// hex, joined by "\n"), every confirmation, refusal and source error. Runs until stdin closes or
// SIGTERM.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { EtcdSource, FileSource } = require('../live.js');

const { values: a } = parseArgs({
  options: {
    etcd: { type: 'string' },
    key: { type: 'string' },
    file: { type: 'string' },
    keys: { type: 'string' },
    seed: { type: 'string' },
  },
});
if (!a.keys || !((a.etcd && a.key) || a.file)) {
  process.stderr.write('usage: follow.js (--etcd URL --key KEY | --file PATH) --keys FILE [--seed HEX]\n');
  process.exit(2);
}
const bytes = fs.readFileSync(a.keys);
const keys = [];
for (let start = 0; start <= bytes.length; ) {
  let end = bytes.indexOf(0x0a, start);
  if (end < 0) end = bytes.length;
  keys.push(bytes.subarray(start, end));
  start = end + 1;
}
if (keys.length && keys[keys.length - 1].length === 0) keys.pop();

const print = (o) => process.stdout.write(JSON.stringify({ ...o, t_ns: Number(process.hrtime.bigint() - hr0) + t0 }) + '\n');
const t0 = Date.now() * 1e6;
const hr0 = process.hrtime.bigint();

function applied(view) {
  const p = view.placement;
  const h = crypto.createHash('sha256');
  keys.forEach((k, i) => {
    if (i > 0) h.update('\n');
    h.update(Buffer.from(p.owner(k)).toString('hex'));
  });
  print({ event: 'applied', epoch: String(view.epoch), fingerprint: view.fingerprint, owners: h.digest('hex') });
}

const onEvent = (e) => {
  if (e.event === 'applied') return; // reported by onChange, with the view applied
  if (e.event === 'unchanged') print({ event: 'unchanged', epoch: e.epoch });
  else if (e.event === 'refused') print({ event: 'refused', kind: e.kind, epoch: e.epoch, message: e.error.message });
  else print({ event: 'source_error', kind: e.kind, message: e.message });
};
const options = { onEvent, seed: a.seed };
const source = a.etcd ? new EtcdSource(a.etcd, a.key, options) : new FileSource(a.file, { ...options, interval: 100 });

(async () => {
  const view = await source.read();
  const { LiveView } = require('../main.js');
  const live = new LiveView(view);
  live.onChange(() => applied(live.current));
  applied(view);
  source.follow(live);
  const stop = async () => {
    await source.stop();
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
})().catch((e) => {
  process.stderr.write(`follow.js: ${e.stack || e}\n`);
  process.exit(1);
});
