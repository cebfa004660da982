import autocannon, { type Result } from "autocannon";

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

function run(target: HttpTarget, connections: number, seconds: number): Promise<Result> {
  let index = 0;
  return autocannon({
    url: target.url,
    method: "POST",
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    timeout: 30,
    setupClient: target.headersFor ? (client) => client.setHeaders({ ...target.headers, ...target.headersFor!(index++ % connections) }) : undefined,
  });
}

/**
 * Loads `target` with autocannon: a warm-up run (discarded), then the measured run with the
 * same connections. Every run is bounded by its duration.
 */
export async function measureHttp(target: HttpTarget, settings: LoadSettings): Promise<LoadFigures> {
  if (settings.warmupSeconds > 0) await run(target, settings.connections, settings.warmupSeconds);
  const r = await run(target, settings.connections, settings.durationSeconds);
  const completed = r["2xx"] + r.non2xx;
  return {
    connections: settings.connections,
    durationSeconds: r.duration,
    requests: completed,
    rps: completed / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
    errors: r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
  };
}
