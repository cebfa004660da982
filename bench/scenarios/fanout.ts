import { startChild, type Child } from "../lib/child.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import type { HttpTarget } from "../lib/load.ts";
import { round } from "../lib/percentiles.ts";
import { sendRequests, waitFor } from "../lib/send.ts";
import { startTai42, startYoga } from "../lib/servers.ts";
import { ECHO_TEXT, tai42Target } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/** The subscription both servers serve, field for field: tai42's runEvents and the baseline's copy of its shape. */
export const RUN_EVENTS = /* GraphQL */ `
  subscription {
    runEvents {
      seq
      type
      at
      run {
        id
        tool
        status
        input
        content {
          type
          text
        }
      }
    }
  }
`;

/** One server's fan-out figures. Latencies in ms, memory in KiB. */
export interface FanoutFigures {
  subscribers: number;
  connected: number;
  /** Events published (a dispatch publishes RUN_STARTED and RUN_FINISHED). */
  events: number;
  expectedDeliveries: number;
  deliveries: number;
  complete: boolean;
  eventsPerSecond: number;
  /** Publish (handed to the bus / pubsub) → received by the client. */
  p50: number;
  p99: number;
  max: number;
  /** Mean size of a delivered `next` payload, JSON characters. */
  messageBytes: number;
  rssPerIdleSubscriberKiB: number;
  heapPerIdleSubscriberKiB: number;
  errors: number;
  firstError: string | null;
}

/** Scenario 2: run events fanned out to many graphql-ws subscribers, against bare yoga + createPubSub. */
export interface FanoutResult {
  settings: BenchSettings["fanout"];
  baseline: FanoutFigures;
  tai42: FanoutFigures;
  ratios: { deliveryRate: number; memoryPerIdleSubscriber: number | null; p99: number };
}

interface Mem {
  rss: number;
  heapUsed: number;
}

async function fanoutOne(
  server: Child,
  pool: Child,
  target: HttpTarget,
  connectionParams: Record<string, unknown> | undefined,
  s: BenchSettings["fanout"],
  log: (l: string) => void,
): Promise<FanoutFigures> {
  await sendRequests(target, 20, 2);
  const stats = () => pool.call<{ received: number; live: number; errors: number; firstError: string | null }>("stats");
  let connected = 0;
  // Subscribes `n` more, then proves every subscription live (a subscribe message may
  // still be on its way when `open` returns): probe dispatches until each subscriber has
  // received an event; then reads the server's settled memory.
  const grow = async (n: number): Promise<Mem> => {
    const opened = await pool.call<{ connected: number }>(
      "open",
      { url: server.url, count: n, query: RUN_EVENTS, connectionParams, keyPath: ["runEvents", "seq"] },
      s.timeoutSeconds * 1000,
    );
    connected += opened.connected;
    await pool.call("reset");
    const deadline = Date.now() + s.timeoutSeconds * 1000;
    while (Date.now() < deadline) {
      await sendRequests(target, 1, 1);
      if (await waitFor(async () => (await stats()).live >= connected, 2000)) break;
    }
    return server.call<Mem>("mem");
  };
  try {
    // Memory per idle subscriber is the slope between a tenth of the subscribers and all
    // of them, both measured after the same history: a reading before any subscriber
    // would still hold the warm-up's garbage, which GC returns to the OS lazily.
    const first = Math.max(1, Math.floor(s.subscribers / 10));
    const memA = await grow(first);
    const atA = connected;
    const memB = await grow(s.subscribers - first);
    const added = Math.max(1, connected - atA);
    await pool.call("reset");
    await server.call("resetPublished");

    await sendRequests(target, s.dispatches, s.concurrency);
    const expected = 2 * s.dispatches * connected;
    const complete = await waitFor(async () => (await stats()).received >= expected, s.timeoutSeconds * 1000);
    const published = await server.call<Record<string, number>>("published");
    const lat = await pool.call<Record<string, number>>("latency", { published }, 120_000);
    const end = await stats();
    const f: FanoutFigures = {
      subscribers: s.subscribers,
      connected,
      events: Object.keys(published).length,
      expectedDeliveries: expected,
      deliveries: lat.deliveries,
      complete,
      eventsPerSecond: round(lat.eventsPerSecond, 0),
      p50: round(lat.p50),
      p99: round(lat.p99),
      max: round(lat.max),
      messageBytes: round(lat.messageBytes, 0),
      rssPerIdleSubscriberKiB: round((memB.rss - memA.rss) / added / 1024),
      heapPerIdleSubscriberKiB: round((memB.heapUsed - memA.heapUsed) / added / 1024),
      errors: end.errors,
      firstError: end.firstError,
    };
    log(
      `  fanout ${server.name.padEnd(14)} ${f.deliveries}/${expected} deliveries  ${f.eventsPerSecond} events/s  p50 ${f.p50} ms  p99 ${f.p99} ms  ${f.rssPerIdleSubscriberKiB} KiB RSS per idle subscriber`,
    );
    return f;
  } finally {
    await pool.call("closeAll");
    await pool.call("reset");
  }
}

export async function fanoutScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<FanoutResult> {
  const s = settings.fanout;
  const pool = await startChild("subscriber pool", "clients/subscriber-pool.ts", {});
  let baseline: FanoutFigures;
  let tai42: FanoutFigures;
  try {
    const yoga = await startYoga();
    try {
      const emit = {
        url: yoga.url,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          query: "mutation Emit($text: String!) { emit(text: $text) }",
          variables: { text: ECHO_TEXT },
        }),
      };
      baseline = await fanoutOne(yoga, pool, emit, undefined, s, log);
    } finally {
      await yoga.stop();
    }
    const tai = await startTai42(dbs, "sqlite");
    try {
      tai42 = await fanoutOne(tai, pool, tai42Target(tai.url, tai.key), { authorization: `Bearer ${tai.key}` }, s, log);
    } finally {
      await tai.stop();
    }
  } finally {
    await pool.stop();
  }
  return {
    settings: s,
    baseline,
    tai42,
    ratios: {
      deliveryRate: round(tai42.eventsPerSecond / baseline.eventsPerSecond, 3),
      // RSS moves in pages and by GC: with few subscribers the baseline's growth can be 0 or below, and no ratio means
      // anything.
      memoryPerIdleSubscriber:
        baseline.rssPerIdleSubscriberKiB > 0
          ? round(tai42.rssPerIdleSubscriberKiB / baseline.rssPerIdleSubscriberKiB, 3)
          : null,
      p99: round(tai42.p99 / baseline.p99, 3),
    },
  };
}
