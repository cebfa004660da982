import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import { boundedSubscription, type SubscribeOptions } from "./subscription.ts";

export { ResumableStreamError, SubscriberOverflowError, type SubscribeOptions } from "./subscription.ts";

// Redis's client and event target load only when a Redis URL is configured: the embedded
// default never pays for them at start.
const require = createRequire(import.meta.url);

/**
 * The runtime's topics, each with its payload (JSON: it may cross Redis). Empty here, so
 * that the bus names no domain's payloads: the runtime declares them by augmenting this
 * interface (`src/runtime-topics.ts`), and a bus typed without its own map carries them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Topics {}

/** The topic names of a topic map. */
export type Topic<T extends object = Topics> = keyof T & string;

/** Options of a {@link Bus}. */
export interface BusOptions<T extends object> {
  /** Crosses instances through this Redis; without it, the bus is this process's alone. */
  redisUrl?: string;
  /** Prefix of the event names (and Redis channels). @default "tai42:" */
  prefix?: string;
  /** Topics that stay in this process even when Redis is configured. */
  localTopics?: Iterable<Topic<T>>;
  onError?: (e: Error) => void;
  onReady?: () => void;
  /** Called when a subscriber of a topic is closed for lagging (metrics). */
  onLagging?: (topic: Topic<T>) => void;
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
export class Bus<T extends object = Topics> {
  private readonly target: Target;
  private readonly local: Target = new EventTarget();
  private readonly prefix: string;
  private readonly localTopics: ReadonlySet<Topic<T>>;
  private readonly redis: Redis[] = [];
  /**
   * Listeners per topic. The target holds one listener per topic that fans out to these:
   * a listener per subscriber on the target itself would trip Node's EventTarget leak
   * warning past 10 subscribers, and make Redis's target parse each message once per
   * subscriber.
   */
  private readonly listeners = new Map<Topic<T>, Set<(payload: unknown) => void>>();
  /** Listeners internal to a fan-out that reports its own subscribers ({@link Bus.countAlso}). */
  private readonly uncounted = new Set<(payload: unknown) => void>();
  private readonly derived: { topic: Topic<T>; count: () => number }[] = [];

  /** Called when a subscriber of `topic` is closed for lagging (metrics). */
  private readonly onLagging?: (topic: Topic<T>) => void;

  constructor(options: BusOptions<T> = {}) {
    this.prefix = options.prefix ?? "tai42:";
    this.localTopics = new Set(options.localTopics);
    this.onLagging = options.onLagging;
    if (options.redisUrl) {
      const { Redis } = require("ioredis") as typeof import("ioredis");
      const { createRedisEventTarget } =
        require("@graphql-yoga/redis-event-target") as typeof import("@graphql-yoga/redis-event-target");
      const onError = options.onError ?? (() => {});
      const mk = (retries: number | null, offlineQueue: boolean) => {
        const r = new Redis(options.redisUrl!, {
          maxRetriesPerRequest: retries,
          enableOfflineQueue: offlineQueue,
          lazyConnect: false,
        });
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
      // A SUBSCRIBE is sent only on a ready connection, and every channel wanted is
      // subscribed again at each "ready": one issued while connecting could be dropped
      // (measured: the first instance of two started together never got the channels it
      // subscribed at start, so runCancel and runEvent never reached it).
      const wanted = new Set<string>();
      sub.on("ready", () => {
        for (const ch of wanted) sub.subscribe(ch).catch(onError);
      });
      const safeSub = {
        on: (event: string, cb: (...args: unknown[]) => void) => sub.on(event, cb),
        subscribe: (ch: string) => {
          wanted.add(ch);
          if (sub.status === "ready") sub.subscribe(ch).catch(onError);
        },
        unsubscribe: (ch: string) => {
          wanted.delete(ch);
          if (sub.status === "ready") sub.unsubscribe(ch).catch(onError);
        },
      } as unknown as Redis;
      this.target = createRedisEventTarget({ publishClient: safePub, subscribeClient: safeSub }) as unknown as Target;
    } else {
      this.target = new EventTarget();
    }
  }

  publish<K extends Topic<T>>(topic: K, payload: T[K]): void {
    this.targetOf(topic).dispatchEvent(new CustomEvent(this.prefix + topic, { detail: payload }));
  }

  private targetOf(topic: Topic<T>): Target {
    return this.localTopics.has(topic) ? this.local : this.target;
  }

  /**
   * Calls `listener` for every event of `topic` until the returned function is called (once is enough; later calls do
   * nothing).
   */
  listen<K extends Topic<T>>(
    topic: K,
    listener: (payload: T[K]) => void,
    options: { counted?: boolean } = {},
  ): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      const all = (set = new Set());
      this.listeners.set(topic, all);
      this.targetOf(topic).addEventListener(this.prefix + topic, (e: Event) => {
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
    const own = (payload: unknown) => listener(payload as T[K]);
    set.add(own);
    if (options.counted === false) this.uncounted.add(own);
    return () => {
      set.delete(own);
      this.uncounted.delete(own);
    };
  }

  /**
   * Counts `count()` among the listeners of `topic`: a consumer that listens once and
   * fans out to its own subscribers (the ordered run event feed) reports them here.
   */
  countAlso(topic: Topic<T>, count: () => number): void {
    this.derived.push({ topic, count });
  }

  /** Listeners of `topic` on this instance, subscribers included: what a leak check reads. */
  listenerCount(topic: Topic<T>): number {
    let n = 0;
    for (const l of this.listeners.get(topic) ?? []) if (!this.uncounted.has(l)) n++;
    for (const d of this.derived) if (d.topic === topic) n += d.count();
    return n;
  }

  /** An async iterator over `topic` with a bounded per-subscriber queue. */
  subscribe<K extends Topic<T>>(topic: K, options: SubscribeOptions<T[K]> = {}): AsyncIterableIterator<T[K]> {
    return boundedSubscription((deliver) => this.listen(topic, deliver), {
      ...options,
      onOverflow: () => this.laggingClosed(topic),
    });
  }

  /**
   * Reports a subscriber of `topic` closed for lagging (also by fan-outs with their own queues, such as the ordered run
   * feed).
   */
  laggingClosed(topic: Topic<T>): void {
    this.onLagging?.(topic);
  }

  /**
   * Throws unless Redis answers a PING within `timeoutMs` (readiness); resolves at once
   * without Redis. Never queues: a connection that is down fails at once.
   */
  async ping(timeoutMs = 2000): Promise<void> {
    const pub = this.redis[0];
    if (!pub) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        pub.ping(),
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether both Redis connections are up; null without Redis. */
  get connected(): boolean | null {
    return this.redis.length ? this.redis.every((r) => r.status === "ready") : null;
  }

  /** Whether this bus crosses instances through Redis. */
  get distributed(): boolean {
    return this.redis.length > 0;
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
