// Sources that keep a LiveView current, and publishers with one authority over epochs
// (conformance/LIVE-VIEW.md): `require('hrwhash/live')`.
//
// Every source does the same: a full read first, then a watch or a poll; every document it reads
// is parsed as a View (with the seed given to the source) and offered to `LiveView.update`. A
// document that does not parse, or that the live view refuses, is recorded in `lastError` and
// reported to `onEvent`, never applied. A lost connection keeps the last view and is retried with
// a backoff from 100 ms doubling to 5 s; every reconnection starts with a full read, then a fresh
// watch from the revision after it, so no change is missed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { LiveView, RampPlan, View } = require('./main.js');

/** The longest view document a source reads (VIEW.md section 5, "Limits"). */
const MAX_DOCUMENT_BYTES = 2 ** 30;
const MAX_EPOCH = 2n ** 64n - 1n;

/** InvalidArgument, as the addon throws it (conformance/errors.json): a TypeError. */
function invalidArgument(message) {
  const e = new TypeError(message);
  e.code = 'ERR_INVALID_ARG_TYPE';
  return e;
}

/** A source error (a lost connection, a missing key or file): code `EIO` unless the system gave one. */
function ioError(message, cause) {
  const e = new Error(message, cause ? { cause } : undefined);
  e.code = (cause && typeof cause.code === 'string' && !cause.code.startsWith('HRW_') && cause.code) || 'EIO';
  return e;
}

/** The error kind name of an hrwhash error (HRW_STALE_VIEW -> StaleView), else `Io`. */
function kindOf(err) {
  if (err && err.code === 'ERR_INVALID_ARG_TYPE') return 'InvalidArgument';
  if (err && typeof err.code === 'string' && err.code.startsWith('HRW_')) {
    return err.code
      .slice(4)
      .toLowerCase()
      .split('_')
      .map((w) => (w === 'json' ? 'Json' : w[0].toUpperCase() + w.slice(1)))
      .join('');
  }
  return 'Io';
}

function seconds(value, name) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidArgument(`${name} must be a finite number of milliseconds >= 0, not ${String(value)}`);
  }
  return value;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The epoch a document claims, for reporting a refusal of one that does not parse. */
function offeredEpoch(bytes) {
  const m = /"epoch"\s*:\s*"(\d{1,20})"/.exec(Buffer.from(bytes).subarray(0, 4096).toString('latin1'));
  return m ? m[1] : null;
}

class Source {
  constructor({ seed, onEvent, backoff } = {}) {
    if (onEvent !== undefined && onEvent !== null && typeof onEvent !== 'function') {
      throw invalidArgument('onEvent must be a function');
    }
    const [first, cap] = backoff ?? [100, 5000];
    seconds(first, 'the first backoff delay');
    seconds(cap, 'the longest backoff delay');
    if (cap < first) throw invalidArgument('the longest backoff delay is below the first one');
    this._seed = seed ?? undefined;
    this._onEvent = onEvent ?? null;
    this._backoff = { first, cap, next: first };
    this._live = null;
    this._stop = new AbortController();
    this._running = null;
  }

  /** The live view this source feeds, once `start` or `follow` ran. */
  get live() {
    return this._live;
  }

  /** A full read, a LiveView of its view (`options` as `new LiveView`'s), then `follow` it. */
  async start(options) {
    const live = new LiveView(await this.read(), options);
    this.follow(live);
    return live;
  }

  /** Keeps `live` current in the background from the last `read` on. */
  follow(live) {
    if (this._running) throw invalidArgument('this source already follows a live view');
    if (!(live instanceof LiveView)) throw invalidArgument('live must be a LiveView');
    this._live = live;
    this._running = this._run().catch((e) => this._sourceError(ioError(`source stopped: ${e.message}`, e)));
  }

  /** Stops following (the live view keeps its last view) and waits until the loop has ended. */
  async stop() {
    this._stop.abort();
    if (this._running) await this._running;
  }

  _parse(bytes) {
    return View.fromJson(bytes, this._seed === undefined ? undefined : { seed: this._seed });
  }

  _emit(event) {
    if (this._onEvent === null) return;
    try {
      this._onEvent(event);
    } catch {
      // An observer's bug must not stop the source.
    }
  }

  _offer(bytes) {
    let view;
    try {
      view = this._parse(bytes);
    } catch (e) {
      this._live.reportError(kindOf(e), e.message);
      this._emit({ event: 'refused', kind: kindOf(e), epoch: offeredEpoch(bytes), error: e });
      return;
    }
    let outcome;
    try {
      outcome = this._live.update(view);
    } catch (e) {
      this._emit({ event: 'refused', kind: kindOf(e), epoch: String(view.epoch), error: e });
      return;
    }
    this._emit({ event: outcome, epoch: String(view.epoch), view });
  }

  _sourceError(error) {
    if (this._live) this._live.reportError(kindOf(error), error.message);
    this._emit({ event: 'source_error', kind: kindOf(error), message: error.message, error });
  }

  async _pause() {
    const b = this._backoff;
    const ms = b.next;
    b.next = Math.min(b.cap, b.next * 2);
    await sleep(ms, this._stop.signal);
  }

  _resetBackoff() {
    this._backoff.next = this._backoff.first;
  }
}

/** A view document in a file, polled; publishers replace it by an atomic rename (`publishFile`). */
class FileSource extends Source {
  constructor(file, { interval = 1000, ...options } = {}) {
    super(options);
    if (typeof file !== 'string') throw invalidArgument('path must be a string');
    this._path = file;
    this._interval = seconds(interval, 'interval');
    this._stamp = null;
  }

  _stat() {
    const s = fs.statSync(this._path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  }

  _readBytes() {
    const s = fs.statSync(this._path);
    if (s.size > MAX_DOCUMENT_BYTES) {
      const e = new Error(`the view file ${this._path} is over ${MAX_DOCUMENT_BYTES} bytes`);
      e.code = 'HRW_RESULT_TOO_LARGE';
      throw e;
    }
    return fs.readFileSync(this._path);
  }

  async read() {
    this._stamp = this._stat();
    return this._parse(this._readBytes());
  }

  async _run() {
    while (!this._stop.signal.aborted) {
      await sleep(this._interval, this._stop.signal);
      if (this._stop.signal.aborted) return;
      try {
        const stamp = this._stat();
        if (stamp === this._stamp) continue;
        const bytes = this._readBytes();
        this._stamp = stamp;
        // A new file with the same document is offered too: it confirms the view (`unchanged`).
        this._offer(bytes);
      } catch (e) {
        this._sourceError(e.code && e.code.startsWith('HRW_') ? e : ioError(`cannot read ${this._path}: ${e.message}`, e));
      }
    }
  }
}

/** A view document at an HTTP URL, polled with If-None-Match. */
class HttpSource extends Source {
  constructor(url, { interval = 1000, timeout = 5000, ...options } = {}) {
    super(options);
    if (typeof url !== 'string') throw invalidArgument('url must be a string');
    this._url = url;
    this._interval = seconds(interval, 'interval');
    this._timeout = seconds(timeout, 'timeout');
    this._etag = null;
  }

  async _get() {
    const headers = this._etag ? { 'if-none-match': this._etag } : {};
    let res;
    try {
      res = await fetch(this._url, { headers, signal: AbortSignal.timeout(this._timeout) });
    } catch (e) {
      throw ioError(`GET ${this._url}: ${e.message}`, e);
    }
    if (res.status === 304) return null;
    if (res.status !== 200) throw ioError(`GET ${this._url}: HTTP ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    this._etag = res.headers.get('etag');
    return bytes;
  }

  async read() {
    this._etag = null;
    return this._parse(await this._get());
  }

  async _run() {
    while (!this._stop.signal.aborted) {
      await sleep(this._interval, this._stop.signal);
      if (this._stop.signal.aborted) return;
      try {
        const bytes = await this._get();
        if (bytes !== null) this._offer(bytes);
      } catch (e) {
        this._sourceError(e);
      }
    }
  }
}

const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const keyBytes = (key) => {
  if (typeof key === 'string') return Buffer.from(key, 'utf8');
  if (key instanceof Uint8Array) return Buffer.from(key);
  throw invalidArgument('key must be a string or a Uint8Array');
};

/** etcd's v3 JSON gateway, over plain HTTP. */
class Etcd {
  constructor(url, timeout) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw invalidArgument(`the etcd URL must be http:// or https://, not ${String(url)}`);
    }
    this.url = url.replace(/\/+$/, '');
    this.timeout = timeout;
  }

  async call(path, body, signal) {
    let res;
    try {
      res = await fetch(this.url + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.timeout)]) : AbortSignal.timeout(this.timeout),
      });
    } catch (e) {
      throw ioError(`etcd ${path}: ${e.message}`, e);
    }
    const text = await res.text();
    if (res.status !== 200) throw ioError(`etcd ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw ioError(`etcd ${path}: the answer is not JSON`, e);
    }
  }

  /** [revision, kv or null] of one key. */
  async range(key, signal) {
    const answer = await this.call('/v3/kv/range', { key: b64(key) }, signal);
    const revision = BigInt(answer.header?.revision ?? '0');
    const kv = answer.kvs && answer.kvs.length ? answer.kvs[0] : null;
    return [revision, kv];
  }
}

const valueOf = (kv) => Buffer.from(kv.value ?? '', 'base64');

/**
 * The view document stored at `key` in etcd, followed with a watch through etcd's v3 JSON
 * gateway. A compacted or cancelled watch, or a lost connection, is followed by a full read and a
 * new watch from the revision after it. A deleted key is a source error (the last view stays).
 */
class EtcdSource extends Source {
  constructor(url, key, { timeout = 5000, idleTimeout = 60000, ...options } = {}) {
    super(options);
    this._etcd = new Etcd(url, seconds(timeout, 'timeout'));
    this._key = keyBytes(key);
    this._idle = seconds(idleTimeout, 'idleTimeout');
    this._revision = null;
  }

  _absent() {
    const e = ioError(`etcd holds no key ${JSON.stringify(this._key.toString())}`);
    e.code = 'ENOENT';
    return e;
  }

  async read() {
    const [revision, kv] = await this._etcd.range(this._key);
    if (kv === null) throw this._absent();
    const view = this._parse(valueOf(kv));
    this._revision = revision;
    return view;
  }

  async _run() {
    let revision = this._revision;
    const signal = this._stop.signal;
    while (!signal.aborted) {
      try {
        if (revision === null) {
          const [rev, kv] = await this._etcd.range(this._key, signal);
          if (kv === null) this._sourceError(this._absent());
          else this._offer(valueOf(kv));
          revision = rev;
        }
        this._resetBackoff();
        await this._watch(revision + 1n);
        revision = null; // compacted, cancelled or silent: read in full, watch afresh
        continue;
      } catch (e) {
        if (signal.aborted) return;
        this._sourceError(e.code ? e : ioError(`etcd: ${e.message}`, e));
      }
      revision = null;
      await this._pause();
    }
  }

  async _watch(startRevision) {
    const idle = new AbortController();
    const signal = AbortSignal.any([this._stop.signal, idle.signal]);
    let res;
    try {
      res = await fetch(this._etcd.url + '/v3/watch', {
        method: 'POST',
        body: JSON.stringify({ create_request: { key: b64(this._key), start_revision: String(startRevision) } }),
        headers: { 'content-type': 'application/json' },
        signal,
      });
    } catch (e) {
      if (this._stop.signal.aborted) return;
      throw ioError(`etcd watch: ${e.message}`, e);
    }
    if (res.status !== 200) throw ioError(`etcd watch: HTTP ${res.status}`);
    let timer = setTimeout(() => idle.abort(), this._idle);
    let pending = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(), this._idle);
        pending += decoder.decode(chunk, { stream: true });
        if (pending.length > 64 * 2 ** 20 * 2) throw ioError('etcd watch sent an over-long message');
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (line && this._message(line)) return;
        }
      }
    } catch (e) {
      if (this._stop.signal.aborted || idle.signal.aborted) return;
      throw e.code ? e : ioError(`etcd watch: ${e.message}`, e);
    } finally {
      clearTimeout(timer);
    }
    if (!this._stop.signal.aborted) throw ioError('etcd closed the watch stream');
  }

  /** Handles one watch message; true when the watch has ended (compacted or cancelled). */
  _message(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch (e) {
      throw ioError('etcd watch sent a line that is not JSON', e);
    }
    if (message === null || typeof message !== 'object') throw ioError('etcd watch sent a line that is not an object');
    if ('error' in message) throw ioError(`etcd watch error: ${JSON.stringify(message.error)}`);
    const result = message.result ?? {};
    if (result.canceled || BigInt(result.compact_revision ?? '0') !== 0n) return true;
    for (const event of result.events ?? []) {
      if (event.type === 'DELETE') this._sourceError(this._absent());
      else this._offer(valueOf(event.kv ?? {}));
    }
    return false;
  }
}

function checkView(view) {
  if (!(view instanceof View)) throw invalidArgument('view must be a View');
  return view;
}

function nextEpoch(stored, offered) {
  if (stored.epoch === MAX_EPOCH) {
    const e = new Error('the stored view is at the last epoch, 2^64 - 1: no later view can be published');
    e.code = 'HRW_INVALID_VIEW';
    e.field = 'epoch';
    e.reason = 'out_of_range';
    throw e;
  }
  return stored.epoch + 1n > offered.epoch ? stored.epoch + 1n : offered.epoch;
}

/**
 * Publishes `view` at `key` in etcd with one authority over epochs: with no view stored it is
 * written at its own epoch (1 when that is 0) if the key still does not exist; with one stored,
 * nothing is written when the fingerprints are equal, else `view` is written at
 * `max(stored + 1, view.epoch)` only if the key was not modified since it was read (a
 * compare-and-swap on its revision), so two publishers never issue the same epoch.
 * Resolves to `{ view, changed }`.
 */
async function publishEtcd(url, key, view, { timeout = 5000, tries = 16, seed } = {}) {
  checkView(view);
  const etcd = new Etcd(url, seconds(timeout, 'timeout'));
  const name = keyBytes(key);
  if (!Number.isSafeInteger(tries) || tries < 1) throw invalidArgument(`tries must be an integer >= 1, not ${String(tries)}`);
  const load = (bytes) => View.fromJson(bytes, seed === undefined ? undefined : { seed });
  for (let i = 0; i < tries; i++) {
    const [, kv] = await etcd.range(name);
    let next;
    let compare;
    if (kv === null) {
      next = view.epoch > 0n ? view : view.withEpoch(1n);
      compare = { key: b64(name), target: 'CREATE', create_revision: '0', result: 'EQUAL' };
    } else {
      const stored = load(valueOf(kv));
      if (stored.fingerprint === view.fingerprint) return { view: stored, changed: false };
      next = view.withEpoch(nextEpoch(stored, view));
      compare = { key: b64(name), target: 'MOD', mod_revision: String(kv.mod_revision ?? '0'), result: 'EQUAL' };
    }
    const answer = await etcd.call('/v3/kv/txn', {
      compare: [compare],
      success: [{ request_put: { key: b64(name), value: b64(Buffer.from(next.toJson(), 'utf8')) } }],
    });
    if (answer.succeeded) return { view: next, changed: true };
  }
  throw ioError(`publish: the compare-and-swap lost ${tries} times in a row`);
}

/**
 * Publishes `view` in the file at `file` with the epoch rule of `publishEtcd` (one publisher: a
 * file has no compare-and-swap), through a temporary file in the same directory, flushed and
 * renamed over `file`, so a reader sees the old document or the new one, never part of one.
 */
function publishFile(file, view, { seed } = {}) {
  checkView(view);
  if (typeof file !== 'string') throw invalidArgument('path must be a string');
  let stored = null;
  try {
    stored = View.fromFile(file, seed === undefined ? undefined : { seed });
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
  let next;
  if (stored === null) next = view.epoch > 0n ? view : view.withEpoch(1n);
  else if (stored.fingerprint === view.fingerprint) return { view: stored, changed: false };
  else next = view.withEpoch(nextEpoch(stored, view));
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.hrwhash-view-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  const fd = fs.openSync(temp, 'wx');
  try {
    fs.writeSync(fd, next.toJson());
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temp, file);
  } catch (e) {
    try {
      fs.unlinkSync(temp);
    } catch {}
    throw e;
  }
  const dfd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
  return { view: next, changed: true };
}

/**
 * Publishes the views of `plan`'s steps in order with `publish` (for instance
 * `(v) => publishEtcd(url, key, v)`), waiting at least `interval` ms between two steps so that
 * the stores behind the fleet absorb each step's movement before the next (VIEW.md section 7).
 * Resolves to what each publish did; an aborted `signal` stops it early with the steps published
 * so far. A publish that throws stops the ramp: its error propagates.
 */
async function publishRamp(plan, publish, { interval, signal } = {}) {
  if (!(plan instanceof RampPlan)) throw invalidArgument('plan must be a RampPlan');
  if (typeof publish !== 'function') throw invalidArgument('publish must be a function');
  if (typeof interval !== 'number' || !Number.isFinite(interval) || interval <= 0) {
    throw invalidArgument(`interval must be a finite number of milliseconds above 0, not ${String(interval)}`);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalidArgument('signal must be an AbortSignal');
  const stop = signal ?? new AbortController().signal;
  const done = [];
  for (let i = 0; i < plan.steps.length; i++) {
    if (i > 0) await sleep(interval, stop);
    if (stop.aborted) break;
    const published = await publish(plan.view(i));
    if (published === null || typeof published !== 'object' || !(published.view instanceof View)) {
      throw invalidArgument('publish must resolve to { view, changed }');
    }
    done.push(published);
  }
  return done;
}

module.exports = { FileSource, HttpSource, EtcdSource, publishEtcd, publishFile, publishRamp, kindOf, MAX_DOCUMENT_BYTES };
