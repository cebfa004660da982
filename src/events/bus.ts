import { createRequire } from "node:module";
import type { Redis } from "ioredis";

// Redis's client and event target load only when a Redis URL is configured: the embedded
// default never pays for them at start.
const require = createRequire(import.meta.url);

/** Topics carried by the bus; payloads are JSON (they may cross Redis). */
export interface Topics {
  runEvent: import("../dispatch/run-record.ts").RunEventRecord;
  /** One entry of an agent run's log (docs/agent-stream.md). */
  agentEvent: import("../agent/events.ts").AgentLogEntry;
  toolsChanged: { at: string };
  keyRevoked: { keyId: string };
  runCancel: { runId: string };
  /** Presets or the active manifest changed on `instanceId`; others reload them. */
  configChanged: { instanceId: string };
  span: import("../extensions/builtin/spans.ts").SpanRecord;
}
export type Topic = keyof Topics;

/** Raised into a subscriber's iterator when it fell behind its bounded buffer. */
export class SubscriberOverflowError extends Error {
  constructor(readonly bufferSize: number) {
    super(`subscriber fell behind: more than ${bufferSize} events were waiting, so the subscription was closed`);
    this.name = "SubscriberOverflowError";
  }
}

/** Options of {@link Bus.subscribe}. */
export interface SubscribeOptions<T> {
  /** Ends the iterator when aborted. */
  signal?: AbortSignal;
  /** Events queued for this subscriber before it is closed as lagging. @default 1000 */
  bufferSize?: number;
  /** Drops payloads the subscriber does not want, before they are queued. */
  filter?: (payload: T) => boolean;
}

interface Target {
  addEventListener(type: string, cb: (e: Event) => void): void;
  removeEventListener(type: string, cb: (e: Event) => void): void;
  dispatchEvent(e: Event): boolean;
}

/**
 * Publish/subscribe between the chokepoint and every subscriber, in-process or across
 * instances through Redis. Each subscriber has its own bounded queue: a slow consumer
 * is closed with {@link SubscriberOverflowError}, never allowed to grow memory or crash
 * the process (yoga's default repeater throws past 1,024 queued events).
 */
export class Bus {
  private readonly target: Target;
  private readonly prefix: string;
  private readonly redis: Redis[] = [];
  /**
   * Listeners per topic. The target holds one listener per topic that fans out to these:
   * a listener per subscriber on the target itself would trip Node's EventTarget leak
   * warning past 10 subscribers, and make Redis's target parse each message once per
   * subscriber.
   */
  private readonly listeners = new Map<Topic, Set<(payload: unknown) => void>>();

  constructor(options: { redisUrl?: string; prefix?: string; onError?: (e: Error) => void; onReady?: () => void } = {}) {
    this.prefix = options.prefix ?? "tai42:";
    if (options.redisUrl) {
      const { Redis } = require("ioredis") as typeof import("ioredis");
      const { createRedisEventTarget } = require("@graphql-yoga/redis-event-target") as typeof import("@graphql-yoga/redis-event-target");
      const onError = options.onError ?? (() => {});
      const mk = (retries: number | null, offlineQueue: boolean) => {
        const r = new Redis(options.redisUrl!, { maxRetriesPerRequest: retries, enableOfflineQueue: offlineQueue, lazyConnect: false });
        r.on("error", onError);
        if (options.onReady) r.on("ready", options.onReady);
        this.redis.push(r);
        return r;
      };
      const pub = mk(1, false);
      const sub = mk(null, true);
      // A publish while Redis is down must not become an unhandled rejection: events
      // degrade, the run that published them carries on and is persisted.
      const safePub = { publish: (ch: string, msg: string) => pub.publish(ch, msg).catch(onError) } as unknown as Redis;
      // Likewise a SUBSCRIBE queued while Redis is down, rejected when the bus closes.
      const safeSub = {
        on: (event: string, cb: (...args: unknown[]) => void) => sub.on(event, cb),
        subscribe: (ch: string) => sub.subscribe(ch).catch(onError),
        unsubscribe: (ch: string) => sub.unsubscribe(ch).catch(onError),
      } as unknown as Redis;
      this.target = createRedisEventTarget({ publishClient: safePub, subscribeClient: safeSub }) as unknown as Target;
    } else {
      this.target = new EventTarget();
    }
  }

  publish<K extends Topic>(topic: K, payload: Topics[K]): void {
    this.target.dispatchEvent(new CustomEvent(this.prefix + topic, { detail: payload }));
  }

  /** Calls `listener` for every event of `topic` until the returned function is called (once is enough; later calls do nothing). */
  listen<K extends Topic>(topic: K, listener: (payload: Topics[K]) => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      const all = (set = new Set());
      this.listeners.set(topic, all);
      this.target.addEventListener(this.prefix + topic, (e: Event) => {
        const payload = (e as CustomEvent<unknown>).detail;
        for (const l of [...all]) {
          try {
            l(payload);
          } catch (err) {
            // As EventTarget does for a throwing listener: reported, the others still run.
            process.nextTick(() => {
              throw err;
            });
          }
        }
      });
    }
    const own = (payload: unknown) => listener(payload as Topics[K]);
    set.add(own);
    return () => void set.delete(own);
  }

  /** Listeners of `topic` on this instance, subscribers included: what a leak check reads. */
  listenerCount(topic: Topic): number {
    return this.listeners.get(topic)?.size ?? 0;
  }

  /** An async iterator over `topic` with a bounded per-subscriber queue. */
  subscribe<K extends Topic>(topic: K, options: SubscribeOptions<Topics[K]> = {}): AsyncIterableIterator<Topics[K]> {
    const size = options.bufferSize ?? 1000;
    const queue: Topics[K][] = [];
    let waiting: ((r: IteratorResult<Topics[K]>) => void) | null = null;
    let failWaiting: ((e: Error) => void) | null = null;
    let failure: Error | null = null;
    let done = false;

    const finish = () => {
      if (done) return;
      done = true;
      unlisten();
      options.signal?.removeEventListener("abort", finish);
      queue.length = 0;
      if (waiting) waiting({ value: undefined, done: true });
      waiting = failWaiting = null;
    };
    const unlisten = this.listen(topic, (payload) => {
      if (done || failure) return;
      if (options.filter && !options.filter(payload)) return;
      if (waiting) {
        const w = waiting;
        waiting = failWaiting = null;
        w({ value: payload, done: false });
      } else if (queue.length >= size) {
        failure = new SubscriberOverflowError(size);
        queue.length = 0;
        unlisten();
      } else queue.push(payload);
    });
    if (options.signal?.aborted) finish();
    else options.signal?.addEventListener("abort", finish, { once: true });

    const iterator: AsyncIterableIterator<Topics[K]> = {
      next() {
        if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
        if (failure) {
          // Thrown once; the iterator is done after that, as the protocol wants.
          const f = failure;
          failure = null;
          finish();
          return Promise.reject(f);
        }
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((ok, fail) => {
          waiting = ok;
          failWaiting = fail;
        });
      },
      return() {
        finish();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw(e?: unknown) {
        finish();
        return Promise.reject(e);
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    void failWaiting;
    return iterator;
  }

  /**
   * Closes the Redis connections. A connection that is not up is dropped at once: QUIT
   * would wait in ioredis's offline queue for a Redis that may never return, and hold a
   * shutdown with it.
   */
  async close(): Promise<void> {
    await Promise.all(
      this.redis.map(async (r) => {
        if (r.status === "ready") {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([r.quit().catch(() => {}), new Promise((done) => (timer = setTimeout(done, 1000)))]);
          clearTimeout(timer);
        }
        r.disconnect();
      }),
    );
  }
}
