/* Types of `hrwhash/live`: sources that keep a LiveView current, and publishers. */
/// <reference types="node" />
import type { LiveView, LiveViewOptions, RampPlan, SeedLike, View } from './index'

/** What a source did with one document, or a source error. */
export type SourceEvent =
  | { event: 'applied' | 'unchanged'; epoch: string; view: View }
  | { event: 'refused'; kind: string; epoch: string | null; error: Error }
  | { event: 'source_error'; kind: string; message: string; error: Error }

export interface SourceOptions {
  /** The seed of secret-seed views (16 bytes or 32 hex digits). */
  seed?: SeedLike
  /** Called for every document read and every source error. */
  onEvent?: ((event: SourceEvent) => void) | null
  /** [first, longest] retry delay in ms after a source error (default [100, 5000]). */
  backoff?: [number, number]
}

declare abstract class Source {
  /** The live view this source feeds, once `start` or `follow` ran. */
  readonly live: LiveView | null
  /** One full read: the view the source holds now. */
  read(): Promise<View>
  /** A full read, a LiveView of its view, then `follow` it. */
  start(options?: LiveViewOptions | null): Promise<LiveView>
  /** Keeps `live` current in the background. */
  follow(live: LiveView): void
  /** Stops following; the live view keeps its last view. */
  stop(): Promise<void>
}

/** A view document in a file, polled every `interval` ms; publishers rename a new file over it. */
export declare class FileSource extends Source {
  constructor(path: string, options?: SourceOptions & { interval?: number })
}

/** A view document at a URL, polled every `interval` ms with If-None-Match. */
export declare class HttpSource extends Source {
  constructor(url: string, options?: SourceOptions & { interval?: number; timeout?: number })
}

/** The view document at `key` in etcd, watched through etcd's v3 JSON gateway. */
export declare class EtcdSource extends Source {
  constructor(
    url: string,
    key: string | Uint8Array,
    options?: SourceOptions & { timeout?: number; idleTimeout?: number },
  )
}

/** What a publish did: the view stored now, and whether this call wrote it. */
export interface Published {
  view: View
  changed: boolean
}

/** Publishes `view` at `key` with a compare-and-swap; the epoch advances only on a change. */
export declare function publishEtcd(
  url: string,
  key: string | Uint8Array,
  view: View,
  options?: { timeout?: number; tries?: number; seed?: SeedLike },
): Promise<Published>

/** Publishes `view` in a file by an atomic rename, with the epoch rule of `publishEtcd`. */
export declare function publishFile(path: string, view: View, options?: { seed?: SeedLike }): Published

/** Publishes a ramp's step views in order, at least `interval` ms apart. */
export declare function publishRamp(
  plan: RampPlan,
  publish: (view: View) => Published | Promise<Published>,
  options: { interval: number; signal?: AbortSignal },
): Promise<Published[]>

/** The error kind name of an hrwhash error (`HRW_STALE_VIEW` -> `StaleView`), else `Io`. */
export declare function kindOf(error: unknown): string

/** The longest view document a source reads. */
export declare const MAX_DOCUMENT_BYTES: number
