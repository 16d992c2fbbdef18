// hrwhash/live against a real etcd on loopback (Debian's etcd-server), a file and an HTTP server.
// Under CI=true a missing etcd fails the test; elsewhere the etcd tests are skipped, saying why.
'use strict';
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const http = require('node:http');
const { spawn, spawnSync } = require('node:child_process');
const { LiveView, Placement, RampPlan, View } = require('hrwhash');
const { EtcdSource, FileSource, HttpSource, publishEtcd, publishFile, publishRamp } = require('hrwhash/live');

const view = (ids, epoch) => new View(new Placement(ids), epoch);
const until = async (what, cond, ms = 10000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hrwhash-live-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A real etcd on free loopback ports, with its own data directory; `null` when none is installed. */
class Etcd {
  static available() {
    return spawnSync('etcd', ['--version']).status === 0;
  }

  async start() {
    this.client = this.client ?? (await freePort());
    this.peer = this.peer ?? (await freePort());
    this.dir = this.dir ?? fs.mkdtempSync(path.join(tmp, 'etcd-'));
    this.url = `http://127.0.0.1:${this.client}`;
    this.proc = spawn(
      'etcd',
      [
        '--name', 'node-test', '--data-dir', this.dir,
        '--listen-client-urls', this.url, '--advertise-client-urls', this.url,
        '--listen-peer-urls', `http://127.0.0.1:${this.peer}`,
        '--initial-advertise-peer-urls', `http://127.0.0.1:${this.peer}`,
        '--initial-cluster', `node-test=http://127.0.0.1:${this.peer}`,
      ],
      { stdio: 'ignore' },
    );
    const end = Date.now() + 20000;
    for (;;) {
      try {
        const r = await fetch(`${this.url}/v3/kv/range`, { method: 'POST', body: '{"key":"AA=="}' });
        if (r.status === 200) return this;
      } catch {}
      if (Date.now() > end || this.proc.exitCode !== null) throw new Error('etcd did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGKILL');
    await exited;
  }

  async put(key, value) {
    const r = await fetch(`${this.url}/v3/kv/put`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from(key).toString('base64'), value: Buffer.from(value).toString('base64') }),
    });
    return (await r.json()).header.revision;
  }

  async compact(revision) {
    await fetch(`${this.url}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  }
}

const etcdMissing = !Etcd.available();
if (etcdMissing && process.env.CI === 'true') {
  test('etcd is installed (CI)', () => assert.fail('etcd is not installed: .ci/run installs etcd-server'));
}
const etcdTest = (name, fn) =>
  test(name, { skip: etcdMissing ? 'etcd is not installed (Debian package etcd-server)' : false }, async () => {
    const etcd = await new Etcd().start();
    try {
      await fn(etcd);
    } finally {
      await etcd.stop();
    }
  });

etcdTest('publishers never issue the same epoch twice', async (etcd) => {
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => publishEtcd(etcd.url, '/fleet', view(['a', 'b', `n${i}`], 1n))),
  );
  const epochs = results.filter((r) => r.changed).map((r) => r.view.epoch);
  assert.equal(new Set(epochs).size, epochs.length, `epochs ${epochs}`);
  assert.equal(epochs.length, 8);
  // The same membership again writes nothing and reports the stored epoch.
  const last = results.reduce((a, b) => (a.view.epoch > b.view.epoch ? a : b));
  const again = await publishEtcd(etcd.url, '/fleet', last.view.withEpoch(1n));
  assert.equal(again.changed, false);
  assert.equal(again.view.epoch, last.view.epoch);
});

etcdTest('a source follows every publish, refuses forged documents, and survives a compaction', async (etcd) => {
  await publishEtcd(etcd.url, '/fleet', view(['a', 'b', 'c', 'd', 'e'], 1n));
  const events = [];
  const source = new EtcdSource(etcd.url, '/fleet', { onEvent: (e) => events.push(e) });
  const live = await source.start();
  try {
    const applied = [];
    live.onChange(() => applied.push(live.epoch));
    assert.equal(live.epoch, 1n);
    for (const ids of [['a', 'b', 'c', 'd', 'e', 'f'], ['a', 'b', 'c', 'd', 'e']]) {
      const p = await publishEtcd(etcd.url, '/fleet', view(ids, 1n));
      await until(`epoch ${p.view.epoch}`, () => live.epoch === p.view.epoch);
      assert.equal(live.fingerprint, p.view.fingerprint);
    }
    assert.deepEqual(applied, [2n, 3n]);
    // Written raw, around the publisher: a lower epoch, the same epoch with other members.
    await etcd.put('/fleet', view(['x'], 2n).toJson());
    await etcd.put('/fleet', view(['y'], 3n).toJson());
    await until('two refusals', () => events.filter((e) => e.event === 'refused').length === 2);
    assert.deepEqual(
      events.filter((e) => e.event === 'refused').map((e) => [e.kind, e.epoch]),
      [['StaleView', '2'], ['ViewConflict', '3']],
    );
    assert.equal(live.epoch, 3n);
    assert.equal(live.lastError.kind, 'ViewConflict');
    // A compaction past the watch's revision: the source reads in full and watches again.
    const rev = await etcd.put('/fleet', view(['a', 'b', 'c', 'd', 'e', 'g'], 9n).toJson());
    await until('epoch 9', () => live.epoch === 9n);
    await etcd.compact(rev);
    const p = await publishEtcd(etcd.url, '/fleet', view(['a', 'b'], 1n));
    await until(`epoch ${p.view.epoch}`, () => live.epoch === p.view.epoch);
  } finally {
    await source.stop();
  }
});

etcdTest('an etcd that goes away leaves the last view, and the source resumes', async (etcd) => {
  await publishEtcd(etcd.url, '/fleet', view(['a', 'b', 'c'], 4n));
  const source = new EtcdSource(etcd.url, '/fleet', { backoff: [50, 200] });
  const live = await source.start();
  try {
    await etcd.stop();
    await until('a source error', () => live.lastError !== null && live.lastError.kind === 'Io');
    assert.equal(live.epoch, 4n);
    assert.equal(live.owner('user:1'), view(['a', 'b', 'c'], 4n).placement.owner('user:1'));
    await etcd.start();
    const p = await publishEtcd(etcd.url, '/fleet', view(['a', 'b', 'c', 'd'], 1n));
    assert.equal(p.view.epoch, 5n);
    await until('epoch 5 after the restart', () => live.epoch === 5n, 15000);
    assert.equal(live.lastError, null);
  } finally {
    await source.stop();
  }
});

etcdTest('a ramp is published step by step, at least the interval apart', async (etcd) => {
  const [old, next] = [view(['a', 'b', 'c', 'd', 'e'], 1n), view(['a', 'b', 'c', 'd', 'e', 'f'], 2n)];
  const plan = new RampPlan(old, next, 0.05);
  assert.ok(plan.steps.length >= 4);
  await publishEtcd(etcd.url, '/fleet', old);
  const source = new EtcdSource(etcd.url, '/fleet');
  const live = await source.start();
  try {
    const began = Date.now();
    const done = await publishRamp(plan, (v) => publishEtcd(etcd.url, '/fleet', v), { interval: 40 });
    assert.ok(Date.now() - began >= 40 * (plan.steps.length - 1));
    assert.deepEqual(done.map((p) => p.view.fingerprint), plan.views().map((v) => v.fingerprint));
    assert.deepEqual(done.map((p) => p.view.epoch), plan.views().map((_, i) => 2n + BigInt(i)));
    await until('the last step', () => live.epoch === done[done.length - 1].view.epoch);
    assert.equal(live.fingerprint, next.fingerprint);
  } finally {
    await source.stop();
  }
});

test('a ramp stops when its signal aborts, and refuses bad arguments', async () => {
  const plan = new RampPlan(view(['a', 'b'], 1n), view(['a', 'b', 'c'], 2n), 0.1);
  const file = path.join(tmp, 'ramp.json');
  const ac = new AbortController();
  const done = await publishRamp(plan, (v) => (ac.abort(), publishFile(file, v)), { interval: 10000, signal: ac.signal });
  assert.equal(done.length, 1);
  assert.equal(View.fromFile(file).fingerprint, plan.view(0).fingerprint);
  const ok = (v) => publishFile(file, v);
  await assert.rejects(publishRamp([], ok, { interval: 1 }), { code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(publishRamp(plan, null, { interval: 1 }), { code: 'ERR_INVALID_ARG_TYPE' });
  for (const interval of [0, -1, NaN, Infinity, '1', undefined]) {
    await assert.rejects(publishRamp(plan, ok, { interval }), { code: 'ERR_INVALID_ARG_TYPE' });
  }
  await assert.rejects(publishRamp(plan, ok, { interval: 1, signal: {} }), { code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(publishRamp(plan, () => 5, { interval: 1 }), { code: 'ERR_INVALID_ARG_TYPE' });
});

test('a file source follows atomic renames and refuses what it must', async () => {
  const file = path.join(tmp, 'view.json');
  publishFile(file, view(['a', 'b'], 1n));
  const events = [];
  const source = new FileSource(file, { interval: 10, onEvent: (e) => events.push(e) });
  const live = await source.start();
  try {
    const p = publishFile(file, view(['a', 'b', 'c'], 1n));
    assert.equal(p.view.epoch, 2n);
    await until('epoch 2', () => live.epoch === 2n);
    assert.equal(publishFile(file, view(['c', 'b', 'a'], 7n)).changed, false);
    fs.writeFileSync(file + '.tmp', '{"format": "hrwhash-view-v1"');
    fs.renameSync(file + '.tmp', file);
    await until('a refusal', () => events.some((e) => e.event === 'refused'));
    assert.equal(events.find((e) => e.event === 'refused').kind, 'InvalidJson');
    assert.equal(live.epoch, 2n);
    fs.rmSync(file);
    await until('a source error', () => events.some((e) => e.event === 'source_error'));
    assert.equal(live.lastError.kind, 'Io');
    publishFile(file, view(['d'], 3n));
    await until('epoch 3', () => live.epoch === 3n);
  } finally {
    await source.stop();
  }
});

test('an HTTP source polls with If-None-Match', async () => {
  let doc = view(['a', 'b'], 1n).toJson();
  let notModified = 0;
  const server = http.createServer((req, res) => {
    const etag = `"${Buffer.from(doc).toString('base64').slice(-16)}"`;
    if (req.headers['if-none-match'] === etag) {
      notModified++;
      res.writeHead(304).end();
    } else res.writeHead(200, { etag }).end(doc);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const source = new HttpSource(`http://127.0.0.1:${server.address().port}/view`, { interval: 10 });
  const live = await source.start();
  try {
    await until('a 304', () => notModified > 2);
    doc = view(['a', 'b', 'c'], 2n).toJson();
    await until('epoch 2', () => live.epoch === 2n);
  } finally {
    await source.stop();
    server.close();
  }
});

test('bad arguments are typed errors', async () => {
  assert.throws(() => new EtcdSource('ftp://x', 'k'), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new EtcdSource('http://127.0.0.1:1', 5), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new FileSource(5), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new FileSource('x', { interval: -1 }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new FileSource('x', { backoff: [10, 5] }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new HttpSource('http://x', { onEvent: 3 }), { code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(publishEtcd('http://127.0.0.1:9', 'k', 'not a view'), { code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(publishEtcd('http://127.0.0.1:9', 'k', view(['a'], 1n), { tries: 0 }), { code: 'ERR_INVALID_ARG_TYPE' });
  // Nothing listens on port 9: the system's error, not a hang.
  await assert.rejects(publishEtcd('http://127.0.0.1:9', 'k', view(['a'], 1n), { timeout: 2000 }), { code: 'EIO' });
  await assert.rejects(new FileSource(path.join(tmp, 'absent.json')).start(), { code: 'ENOENT' });
  const source = new FileSource(path.join(tmp, 'absent.json'));
  assert.throws(() => source.follow({}), { code: 'ERR_INVALID_ARG_TYPE' });
  const live = new LiveView(view(['a'], 1n));
  assert.equal(live.epoch, 1n);
});
