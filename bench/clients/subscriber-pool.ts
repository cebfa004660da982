import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { nowMs, runChild } from "../lib/child-harness.ts";
import { percentile } from "../lib/percentiles.ts";

/**
 * A pool of graphql-ws clients in its own process (the load generator of the fan-out and
 * streaming scenarios), one socket per subscription, driven over IPC. It records when
 * each event arrived, keyed by the event's `seq`, so latencies can be computed against
 * the server's publish times.
 */

/** Options of the `open` command. */
export interface OpenSpec {
  url: string;
  count: number;
  query: string;
  variables?: Record<string, unknown>;
  connectionParams?: Record<string, unknown>;
  /** Path of the event's key in `data` (e.g. ["runEvents", "seq"]). */
  keyPath: string[];
  /** Sockets opened at once. @default 50 */
  batch?: number;
  /** Path of a label to record with each arrival (e.g. ["agentStream", "__typename"]): the stream's `arrivals`. */
  labelPath?: string[];
}

/** One subscription's life, for the streaming scenario. */
export interface StreamRecord {
  subscribedAt: number;
  firstAt: number | null;
  lastAt: number | null;
  count: number;
  completedAt: number | null;
  error: string | null;
  /** With `labelPath`: when each event arrived, with its label. */
  arrivals?: { at: number; label: string }[];
}

const clients: Client[] = [];
const streams: StreamRecord[] = [];
let keys: number[] = [];
let times: number[] = [];
let sizeSamples: number[] = [];
let errors = 0;
let firstError: string | null = null;

function at(data: unknown, path: string[]): number {
  let v = data as Record<string, unknown> | undefined;
  for (const p of path) v = v?.[p] as Record<string, unknown> | undefined;
  return Number(v);
}

function label(data: unknown, path: string[]): unknown {
  let v = data as Record<string, unknown> | undefined;
  for (const p of path) v = v?.[p] as Record<string, unknown> | undefined;
  return v;
}

function describe(e: unknown): string {
  if (Array.isArray(e)) return e.map(describe).join("; ");
  if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  if (e && typeof e === "object" && "code" in e)
    return `socket closed ${(e as { code: unknown }).code} ${(e as { reason?: unknown }).reason ?? ""}`;
  return String(e);
}

function fail(record: StreamRecord | null, e: unknown): void {
  errors++;
  firstError ??= describe(e);
  if (record) record.error ??= describe(e);
}

/** Opens `count` sockets (in batches), waits until each is acknowledged, then subscribes on each. */
async function open(spec: OpenSpec): Promise<{ connected: number; failed: number }> {
  const batch = spec.batch ?? 50;
  const opened: Client[] = [];
  let failed = 0;
  for (let i = 0; i < spec.count; i += batch) {
    const n = Math.min(batch, spec.count - i);
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<void>((resolve) => {
            const client = createClient({
              url: spec.url.replace(/^http/, "ws"),
              webSocketImpl: WebSocket,
              lazy: false,
              retryAttempts: 0,
              connectionParams: spec.connectionParams,
              on: {
                connected: () => {
                  opened.push(client);
                  resolve();
                },
                closed: () => resolve(),
                error: (e) => {
                  failed++;
                  fail(null, e);
                  resolve();
                },
              },
            });
            clients.push(client);
          }),
      ),
    );
  }
  for (const client of opened) {
    const record: StreamRecord = {
      subscribedAt: nowMs(),
      firstAt: null,
      lastAt: null,
      count: 0,
      completedAt: null,
      error: null,
      ...(spec.labelPath ? { arrivals: [] } : {}),
    };
    streams.push(record);
    client.subscribe(
      { query: spec.query, variables: spec.variables },
      {
        next: (r) => {
          const t = nowMs();
          if (r.errors) return fail(record, r.errors);
          record.count++;
          record.firstAt ??= t;
          record.lastAt = t;
          keys.push(at(r.data, spec.keyPath));
          if (spec.labelPath) record.arrivals!.push({ at: t, label: String(label(r.data, spec.labelPath)) });
          times.push(t);
          if (sizeSamples.length < 2000) sizeSamples.push(JSON.stringify(r).length);
        },
        error: (e) => fail(record, e),
        complete: () => (record.completedAt = nowMs()),
      },
    );
  }
  return { connected: opened.length, failed };
}

/** Latency of every recorded delivery against the server's publish time of its key. */
function latency(published: Record<string, number>): Record<string, number> {
  const lat = new Float64Array(keys.length);
  let n = 0;
  let missing = 0;
  for (let i = 0; i < keys.length; i++) {
    const p = published[keys[i]];
    if (p === undefined) missing++;
    else lat[n++] = times[i] - p;
  }
  let lastRecv = -Infinity;
  for (const t of times) lastRecv = Math.max(lastRecv, t);
  let firstPub = Infinity;
  for (const t of Object.values(published)) firstPub = Math.min(firstPub, t);
  const window = (lastRecv - firstPub) / 1000;
  const used = lat.subarray(0, n);
  return {
    deliveries: keys.length,
    unmatched: missing,
    windowSeconds: window,
    eventsPerSecond: keys.length / window,
    p50: percentile(used, 50),
    p99: percentile(used, 99),
    max: n ? used[n - 1] : Number.NaN,
    messageBytes: sizeSamples.reduce((a, b) => a + b, 0) / (sizeSamples.length || 1),
  };
}

runChild(async () => ({
  url: "",
  commands: {
    open: (spec) => open(spec as OpenSpec),
    stats: () => ({
      sockets: clients.length,
      received: keys.length,
      /** Subscriptions that received at least one event since the last reset. */
      live: streams.filter((s) => s.count > 0).length,
      completed: streams.filter((s) => s.completedAt !== null).length,
      errors,
      firstError,
    }),
    reset: () => {
      keys = [];
      times = [];
      sizeSamples = [];
      for (const s of streams) Object.assign(s, { firstAt: null, lastAt: null, count: 0 });
    },
    latency: (arg) => latency((arg as { published: Record<string, number> }).published),
    streams: () => streams,
    messageBytes: () => sizeSamples.reduce((a, b) => a + b, 0) / (sizeSamples.length || 1),
    closeAll: async () => {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      streams.length = 0;
    },
  },
  async stop() {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  },
}));
