import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import { boundedSubscription, type SubscribeOptions } from "./subscription.ts";

export { ResumableStreamError, SubscriberOverflowError, type SubscribeOptions } from "./subscription.ts";

// Redis's client and event target load only when a Redis URL is configured: the embedded
// default never pays for them at start.
const require = createRequire(import.meta.url);

/** Topics carried by the bus; payloads are JSON (they may cross Redis). */
export interface Topics {
  runEvent: import("../dispatch/run-record.ts").RunEventRecord;
  /** One entry of an agent run's log (docs/agent-stream.md). */
  agentEvent: import("../agent/events.ts").AgentLogEntry;
  /**
   * This instance's surface changed (it is rebuilt already): never carried across
   * instances, so a subscriber that lists the surface on it never gets the list from
   * before the change (each instance fires its own once it has applied a change).
   */
  toolsChanged: { at: string; version?: number };
  keyRevoked: { keyId: string };
  runCancel: { runId: string };
  /** Presets or the active manifest changed on `instanceId` (stored surface `version`); others reload them. */
  configChanged: { instanceId: string; version?: number };
  span: import("../extensions/builtin/spans.ts").SpanRecord;
  /** A message an MCP client posted on a session, for the instance whose request it concerns (docs/mcp.md). */
  mcpClientMessage: { sessionId: string; message: unknown };
  /** An MCP session was deleted; instances drop it from their caches. */
  mcpSessionClosed: { sessionHash: string };
  /** An interaction as stored (its answer left out), when it opens and when it closes. */
  interaction: import("../interactions/interaction-store.ts").PublishedInteraction;
}
export type Topic = keyof Topics;

/** Topics that stay in this process even when Redis is configured. */
const LOCAL_TOPICS: ReadonlySet<Topic> = new Set(["toolsChanged"]);

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
  private readonly local: Target = new EventTarget();
  private readonly prefix: string;
  private readonly redis: Redis[] = [];
  /**
   * Listeners per topic. The target holds one listener per topic that fans out to these:
   * a listener per subscriber on the target itself would trip Node's EventTarget leak
   * warning past 10 subscribers, and make Redis's target parse each message once per
   * subscriber.
   */
  private readonly listeners = new Map<Topic, Set<(payload: unknown) => void>>();
  /** Listeners internal to a fan-out that reports its own subscribers ({@link Bus.countAlso}). */
  private readonly uncounted = new Set<(payload: unknown) => void>();
  private readonly derived: { topic: Topic; count: () => number }[] = [];

  /** Called when a subscriber of `topic` is closed for lagging (metrics). */
  private readonly onLagging?: (topic: Topic) => void;

  constructor(options: { redisUrl?: string; prefix?: string; onError?: (e: Error) => void; onReady?: () => void; onLagging?: (topic: Topic) => void } = {}) {
    this.prefix = options.prefix ?? "tai42:";
    this.onLagging = options.onLagging;
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

  publish<K extends Topic>(topic: K, payload: Topics[K]): void {
    this.targetOf(topic).dispatchEvent(new CustomEvent(this.prefix + topic, { detail: payload }));
  }

  private targetOf(topic: Topic): Target {
    return LOCAL_TOPICS.has(topic) ? this.local : this.target;
  }

  /** Calls `listener` for every event of `topic` until the returned function is called (once is enough; later calls do nothing). */
  listen<K extends Topic>(topic: K, listener: (payload: Topics[K]) => void, options: { counted?: boolean } = {}): () => void {
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
    const own = (payload: unknown) => listener(payload as Topics[K]);
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
  countAlso(topic: Topic, count: () => number): void {
    this.derived.push({ topic, count });
  }

  /** Listeners of `topic` on this instance, subscribers included: what a leak check reads. */
  listenerCount(topic: Topic): number {
    let n = 0;
    for (const l of this.listeners.get(topic) ?? []) if (!this.uncounted.has(l)) n++;
    for (const d of this.derived) if (d.topic === topic) n += d.count();
    return n;
  }

  /** An async iterator over `topic` with a bounded per-subscriber queue. */
  subscribe<K extends Topic>(topic: K, options: SubscribeOptions<Topics[K]> = {}): AsyncIterableIterator<Topics[K]> {
    return boundedSubscription((deliver) => this.listen(topic, deliver), { ...options, onOverflow: () => this.laggingClosed(topic) });
  }

  /** Reports a subscriber of `topic` closed for lagging (also by fan-outs with their own queues, such as the ordered run feed). */
  laggingClosed(topic: Topic): void {
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
      await Promise.race([pub.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
    } finally {
      clearTimeout(timer);
    }
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
