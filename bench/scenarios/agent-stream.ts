import { startChild, type Child } from "../lib/child.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { percentile, round } from "../lib/percentiles.ts";
import { waitFor } from "../lib/send.ts";
import { startTai42, startYoga, type Tai42Child } from "../lib/servers.ts";
import type { StreamRecord } from "../clients/subscriber-pool.ts";
import { PACED_PROVIDER } from "../servers/bench-model.ts";
import { streamText } from "../lib/stream-text.ts";
import type { BenchSettings } from "../settings.ts";

const FIELDS = /* GraphQL */ `
  __typename
  ... on StreamEventBase { type final seq runId agent }
  ... on MessageDelta { text }
  ... on MessageFinal { text }
  ... on RunUsage { inputTokens outputTokens totalTokens model }
`;
const TAI42_STREAM = `subscription S($input: AgentRunInput!, $runId: ID, $afterSeq: Int) { agentStream(input: $input, runId: $runId, afterSeq: $afterSeq) { ${FIELDS} } }`;
const BARE_STREAM = `subscription S($deltas: Int!) { agentStream(deltas: $deltas) { ${FIELDS} } }`;

/** One streaming measurement. Times in ms. */
export interface StreamFigures {
  subscribers: number;
  /** Events each subscriber received (deltas + usage + final). */
  eventsPerSubscriber: number;
  deliveries: number;
  complete: boolean;
  /** All deliveries over the time from the start (subscribe, or the gate opening) to the last event. */
  eventsPerSecond: number;
  /**
   * Time to first event: from subscribing (1 subscriber) or from the stream's start once all joined (many); median over
   * subscribers.
   */
  ttfeMs: number;
  ttfeMaxMs: number;
  seconds: number;
  errors: string[];
}

/**
 * The answer as the model writes it (issue 25), 1 subscriber, a model writing a chunk every
 * `chunkMs`. Times in ms, on one clock (`nowMs`, both processes on this machine).
 */
export interface LiveFigures {
  /** Whether the server knows a secret (its deltas then lag by `lagChars`). */
  secret: boolean;
  lagChars: number;
  chunkMs: number;
  chunks: number;
  /** The first MessageDelta's arrival at the subscriber − the moment the model wrote its first chunk. */
  firstDeltaMs: number;
  /**
   * The bound: one chunk + 10 ms with no secret; with one, the time the model takes to write more than `lagChars`
   * characters, + one chunk + 10 ms.
   */
  boundMs: number;
  /** The subscriber's last − first MessageDelta arrival, against the model's own last − first chunk. */
  spreadMs: number;
  modelSpreadMs: number;
  /** Subscribing → first MessageDelta (includes starting the run). */
  fromSubscribeMs: number;
}

/**
 * Scenario 3: a scripted model's deltas streamed through agentStream, against a bare yoga subscription yielding the
 * same payloads.
 */
export type AgentStreamResult =
  | { measured: false; reason: string }
  | {
      measured: true;
      settings: BenchSettings["agent"];
      points: {
        subscribers: number;
        baseline: StreamFigures;
        tai42: StreamFigures;
        rateRatio: number;
        ttfeRatio: number;
      }[];
      live?: LiveFigures[];
    };

function figures(streams: StreamRecord[], startedAt: number | null): StreamFigures {
  const firsts = streams.map((s) => (s.firstAt ?? Number.NaN) - (startedAt ?? s.subscribedAt));
  const start = startedAt ?? Math.min(...streams.map((s) => s.subscribedAt));
  const last = Math.max(...streams.map((s) => s.lastAt ?? 0));
  const deliveries = streams.reduce((a, s) => a + s.count, 0);
  const seconds = (last - start) / 1000;
  return {
    subscribers: streams.length,
    eventsPerSubscriber: streams[0]?.count ?? 0,
    deliveries,
    complete: streams.every((s) => s.completedAt !== null && !s.error),
    eventsPerSecond: round(deliveries / seconds, 0),
    ttfeMs: round(percentile([...firsts], 50)),
    ttfeMaxMs: round(Math.max(...firsts)),
    seconds: round(seconds, 3),
    errors: [...new Set(streams.flatMap((s) => (s.error ? [s.error] : [])))].slice(0, 3),
  };
}

/**
 * Unmeasured streams per server before the measured ones, and measured repetitions per point (each side's median kept).
 */
const WARMUPS = 3;
const REPETITIONS = 5;

/** The repetition with the median rate (its own TTFE kept with it); an incomplete one counts as slowest. */
function median(runs: StreamFigures[]): StreamFigures {
  const sorted = [...runs].sort(
    (a, b) => (a.complete ? a.eventsPerSecond : -1) - (b.complete ? b.eventsPerSecond : -1),
  );
  return sorted[Math.floor(sorted.length / 2)];
}

/** Waits for every stream of the pool to end (bounded), then reads them. */
async function ended(pool: Child, timeoutMs: number): Promise<StreamRecord[]> {
  await waitFor(
    async () => (await pool.call<StreamRecord[]>("streams")).every((s) => s.completedAt !== null || s.error !== null),
    timeoutMs,
  );
  return pool.call<StreamRecord[]>("streams");
}

async function bare(yoga: Child, pool: Child, subscribers: number, s: BenchSettings["agent"]): Promise<StreamFigures> {
  try {
    const variables = { deltas: s.deltas };
    if (subscribers === 1) {
      await pool.call("open", {
        url: yoga.url,
        count: 1,
        query: BARE_STREAM,
        variables,
        keyPath: ["agentStream", "seq"],
      });
      return figures(await ended(pool, s.timeoutSeconds * 1000), null);
    }
    await yoga.call("arm");
    await pool.call(
      "open",
      { url: yoga.url, count: subscribers, query: BARE_STREAM, variables, keyPath: ["agentStream", "seq"] },
      s.timeoutSeconds * 1000,
    );
    await waitFor(async () => (await yoga.call<number>("waiting")) >= subscribers, s.timeoutSeconds * 1000);
    const start = await yoga.call<number>("open");
    return figures(await ended(pool, s.timeoutSeconds * 1000), start);
  } finally {
    await pool.call("closeAll");
  }
}

async function tai42(
  tai: Tai42Child,
  pool: Child,
  subscribers: number,
  s: BenchSettings["agent"],
): Promise<StreamFigures> {
  const connectionParams = { authorization: `Bearer ${tai.key}` };
  const start = { input: { userMessage: "stream the benchmark text", llmProvider: "bench-stream" } };
  try {
    if (subscribers === 1) {
      await pool.call("open", {
        url: tai.url,
        count: 1,
        query: TAI42_STREAM,
        variables: start,
        connectionParams,
        keyPath: ["agentStream", "seq"],
      });
      return figures(await ended(pool, s.timeoutSeconds * 1000), null);
    }
    // One subscriber starts the run, held at the model until everyone has joined it.
    await tai.call("arm");
    await pool.call("open", {
      url: tai.url,
      count: 1,
      query: TAI42_STREAM,
      variables: start,
      connectionParams,
      keyPath: ["agentStream", "seq"],
    });
    await waitFor(async () => (await tai.call<number>("waiting")) >= 1, s.timeoutSeconds * 1000);
    const runId = await tai.call<string>("runningAgentRun");
    await pool.call(
      "open",
      {
        url: tai.url,
        count: subscribers - 1,
        query: TAI42_STREAM,
        variables: { input: {}, runId, afterSeq: 0 },
        connectionParams,
        keyPath: ["agentStream", "seq"],
      },
      s.timeoutSeconds * 1000,
    );
    await waitFor(
      async () => (await tai.call<number>("listeners", "agentEvent")) >= subscribers,
      s.timeoutSeconds * 1000,
    );
    const opened = await tai.call<number>("open");
    return figures(await ended(pool, s.timeoutSeconds * 1000), opened);
  } finally {
    await pool.call("closeAll");
  }
}

/** One run of the paced model to 1 subscriber: when its answer's deltas arrived against when the model wrote them. */
async function live(tai: Tai42Child, pool: Child, s: BenchSettings["agent"], secret: boolean): Promise<LiveFigures> {
  const connectionParams = { authorization: `Bearer ${tai.key}` };
  const variables = { input: { userMessage: "write the benchmark text", llmProvider: PACED_PROVIDER } };
  try {
    await pool.call("open", {
      url: tai.url,
      count: 1,
      query: TAI42_STREAM,
      variables,
      connectionParams,
      keyPath: ["agentStream", "seq"],
      labelPath: ["agentStream", "__typename"],
    });
    const [stream] = await ended(pool, s.timeoutSeconds * 1000);
    const written = await tai.call<number[]>("written");
    const deltas = (stream.arrivals ?? []).filter((a) => a.label === "MessageDelta").map((a) => a.at);
    const lagChars = await tai.call<number>("lag");
    const { chunks } = streamText(s.paced.words);
    // The lag's worth of text: the chunk after which the model has written more than lagChars characters.
    let written_ = 0;
    const lagChunk = Math.max(
      0,
      chunks.findIndex((c) => (written_ += c.length) > lagChars),
    );
    const lagMs = lagChunk * s.paced.chunkMs;
    return {
      secret,
      lagChars,
      chunkMs: s.paced.chunkMs,
      chunks: written.length,
      firstDeltaMs: round(deltas[0] - written[0]),
      boundMs: lagMs + s.paced.chunkMs + 10,
      spreadMs: round(deltas.at(-1)! - deltas[0]),
      modelSpreadMs: round(written.at(-1)! - written[0]),
      fromSubscribeMs: round(deltas[0] - stream.subscribedAt),
    };
  } finally {
    await pool.call("closeAll");
  }
}

/**
 * For 1 subscriber the stream starts when it subscribes; for many, every subscriber joins
 * first (tai42: one starts the run, the others join it by runId; baseline: each waits on
 * the same gate) and the clock starts when the stream is released. A first, unmeasured
 * stream warms each server.
 */
export async function agentStreamScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<AgentStreamResult> {
  const s = settings.agent;
  const started: Child[] = [];
  try {
    const yoga = await startYoga();
    started.push(yoga);
    const tai = await startTai42(dbs, "sqlite", { deltas: s.deltas, paced: s.paced });
    started.push(tai);
    const pool = await startChild("stream clients", "clients/subscriber-pool.ts", {});
    started.push(pool);
    const hasAgents = await fetch(tai.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tai.key}` },
      body: JSON.stringify({ query: '{ __type(name: "Subscription") { fields { name } } }' }),
    })
      .then((r) => r.json() as Promise<{ data?: { __type?: { fields?: { name: string }[] } } }>)
      .then((b) => Boolean(b.data?.__type?.fields?.some((f) => f.name === "agentStream")));
    if (!hasAgents) return { measured: false, reason: "this tai42 build has no agentStream subscription" };
    // Warm both servers' JIT on the measured path, then interleave the repetitions (so
    // both sides share the machine's drift) and keep each side's median repetition.
    for (let i = 0; i < WARMUPS; i++) {
      await bare(yoga, pool, 1, s);
      await tai42(tai, pool, 1, s);
    }
    const points = [];
    for (const n of s.subscribers) {
      const bs: StreamFigures[] = [];
      const ts: StreamFigures[] = [];
      for (let i = 0; i < REPETITIONS; i++) {
        bs.push(await bare(yoga, pool, n, s));
        ts.push(await tai42(tai, pool, n, s));
      }
      const b = median(bs);
      const t = median(ts);
      points.push({
        subscribers: n,
        baseline: b,
        tai42: t,
        rateRatio: round(t.eventsPerSecond / b.eventsPerSecond, 3),
        ttfeRatio: round(t.ttfeMs / b.ttfeMs, 3),
      });
      log(
        `  agent stream ${String(n).padStart(3)} subscriber(s)  tai42 ${t.eventsPerSecond} events/s ttfe ${t.ttfeMs} ms${t.complete ? "" : " (incomplete)"} | bare ${b.eventsPerSecond} events/s ttfe ${b.ttfeMs} ms`,
      );
    }
    // The answer as the model writes it: on this server (no secret), then on one that knows a secret.
    await live(tai, pool, s, false);
    const plain = await live(tai, pool, s, false);
    const sealed = await startTai42(dbs, "sqlite", {
      deltas: s.deltas,
      paced: s.paced,
      secret: "bench-known-secret-value-0001",
    });
    started.push(sealed);
    await live(sealed, pool, s, true);
    const withSecret = await live(sealed, pool, s, true);
    for (const f of [plain, withSecret])
      log(
        `  live answer${f.secret ? ` (a secret known, lag ${f.lagChars} chars)` : " (no secret)"}: first delta ${f.firstDeltaMs} ms after the model's first chunk (bound ${f.boundMs} ms), spread ${f.spreadMs} ms vs the model's ${f.modelSpreadMs} ms`,
      );
    return { measured: true, settings: s, points, live: [plain, withSecret] };
  } finally {
    await Promise.all(started.map((c) => c.stop()));
  }
}
