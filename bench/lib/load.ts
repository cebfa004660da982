import autocannon, { type Result } from "autocannon";
import { percentile, round } from "./percentiles.ts";

/** One HTTP request shape to load a server with. */
export interface HttpTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Per-connection headers (e.g. one MCP session per connection), by connection index. */
  headersFor?: (connection: number) => Record<string, string>;
}

/** Settings of one measured load. */
export interface LoadSettings {
  connections: number;
  /** Seconds of load before measuring, discarded (JIT, caches, pools). */
  warmupSeconds: number;
  /** Seconds measured. */
  durationSeconds: number;
}

/** What one measured load gave. Latencies in milliseconds. */
export interface LoadFigures {
  connections: number;
  durationSeconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  timeouts: number;
}

/** Figures of a load split over several targets: the whole, and each target's share. */
export interface SplitFigures extends LoadFigures {
  parts: LoadFigures[];
}

/** One autocannon run; with `samples`, every 2xx response's time (ms, a float) is pushed to it. */
function run(target: HttpTarget, connections: number, seconds: number, samples?: number[]): Promise<Result> {
  let index = 0;
  const instance = autocannon({
    url: target.url,
    method: "POST",
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    timeout: 30,
    setupClient: target.headersFor
      ? (client) => client.setHeaders({ ...target.headers, ...target.headersFor!(index++ % connections) })
      : undefined,
  });
  if (samples)
    instance.on("response", (_client, status, _bytes, ms) => void (status >= 200 && status < 300 && samples.push(ms)));
  return instance;
}

/** Latency from the response times themselves, to the microsecond. */
function exactLatency(samples: number[]): Pick<LoadFigures, "p50" | "p99" | "mean"> {
  const mean = samples.reduce((a, v) => a + v, 0) / samples.length;
  return { p50: round(percentile(samples, 50), 3), p99: round(percentile(samples, 99), 3), mean: round(mean, 3) };
}

function figures(r: Result, connections: number, samples: number[] | null): LoadFigures {
  const completed = r["2xx"] + r.non2xx;
  return {
    connections,
    durationSeconds: r.duration,
    requests: completed,
    rps: completed / r.duration,
    ...(samples ? exactLatency(samples) : { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean }),
    errors: r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
  };
}

/**
 * Loads `targets` at once, `settings.connections` split between them (one autocannon each,
 * in this process): a warm-up (discarded), then the measured run. Latency is exact
 * (every response's time), merged over the targets.
 */
export async function measureSplit(targets: HttpTarget[], settings: LoadSettings): Promise<SplitFigures> {
  if (!targets.length || targets.length > settings.connections)
    throw new Error(`cannot split ${settings.connections} connection(s) over ${targets.length} target(s)`);
  const share = (i: number) =>
    Math.floor(settings.connections / targets.length) + (i < settings.connections % targets.length ? 1 : 0);
  if (settings.warmupSeconds > 0) await Promise.all(targets.map((t, i) => run(t, share(i), settings.warmupSeconds)));
  const samples = targets.map(() => [] as number[]);
  const all = await Promise.all(targets.map((t, i) => run(t, share(i), settings.durationSeconds, samples[i])));
  const merged = samples.flat();
  const parts = all.map((r, i) => figures(r, share(i), samples[i]));
  const sum = (f: (p: LoadFigures) => number) => parts.reduce((a, p) => a + f(p), 0);
  return {
    connections: settings.connections,
    durationSeconds: Math.max(...parts.map((p) => p.durationSeconds)),
    requests: sum((p) => p.requests),
    rps: sum((p) => p.rps),
    ...exactLatency(merged),
    errors: sum((p) => p.errors),
    non2xx: sum((p) => p.non2xx),
    timeouts: sum((p) => p.timeouts),
    parts,
  };
}

/**
 * Loads `target` with autocannon: a warm-up run (discarded), then the measured run with the
 * same connections. Every run is bounded by its duration. Latency is autocannon's
 * histogram (whole milliseconds) unless `exactLatency`.
 */
export async function measureHttp(
  target: HttpTarget,
  settings: LoadSettings,
  options: { exactLatency?: boolean } = {},
): Promise<LoadFigures> {
  if (options.exactLatency) {
    const { parts: _parts, ...whole } = await measureSplit([target], settings);
    return whole;
  }
  if (settings.warmupSeconds > 0) await run(target, settings.connections, settings.warmupSeconds);
  return figures(await run(target, settings.connections, settings.durationSeconds), settings.connections, null);
}

/** The mean of several rounds of one load: rates and latencies averaged, counts summed. */
export function meanFigures(rounds: LoadFigures[]): LoadFigures {
  const avg = (f: (r: LoadFigures) => number) => rounds.reduce((a, r) => a + f(r), 0) / rounds.length;
  const sum = (f: (r: LoadFigures) => number) => rounds.reduce((a, r) => a + f(r), 0);
  return {
    connections: rounds[0].connections,
    durationSeconds: round(sum((r) => r.durationSeconds)),
    requests: sum((r) => r.requests),
    rps: round(
      avg((r) => r.rps),
      1,
    ),
    p50: round(
      avg((r) => r.p50),
      3,
    ),
    p99: round(
      avg((r) => r.p99),
      3,
    ),
    mean: round(
      avg((r) => r.mean),
      3,
    ),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    timeouts: sum((r) => r.timeouts),
  };
}

/** One line of a progress log: req/s, p50, p99, and errors when there were any. */
export function figuresLine(f: LoadFigures): string {
  return `${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms${f.errors || f.non2xx ? `  (${f.errors} errors, ${f.non2xx} non-2xx)` : ""}`;
}
