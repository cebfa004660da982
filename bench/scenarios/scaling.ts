import type { Child } from "../lib/child.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { measureHttp, type LoadFigures } from "../lib/load.ts";
import { round } from "../lib/percentiles.ts";
import { startTai42, startYoga } from "../lib/servers.ts";
import { checkTarget, tai42Target, yogaTarget } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/** One point of the curve. */
export interface ScalingPoint {
  connections: number;
  tai42: LoadFigures;
  yoga: LoadFigures;
  /** tai42 req/s over bare yoga's at this load. */
  rpsRatio: number;
  /** tai42 p99 over bare yoga's at this load. */
  p99Ratio: number;
}

/** Scenario 4: dispatch (SQLite) throughput and p99 as connections grow, with bare yoga beside it. */
export interface ScalingResult {
  settings: BenchSettings["scaling"];
  points: ScalingPoint[];
}

export async function scalingScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<ScalingResult> {
  const s = settings.scaling;
  const started: Child[] = [];
  try {
    const yoga = await startYoga();
    started.push(yoga);
    const tai = await startTai42(dbs, "sqlite");
    started.push(tai);
    const targets = { yoga: yogaTarget(yoga.url), tai42: tai42Target(tai.url, tai.key) };
    await checkTarget("yoga", targets.yoga);
    await checkTarget("tai42", targets.tai42);
    const points: ScalingPoint[] = [];
    for (const connections of s.connections) {
      const load = { connections, warmupSeconds: s.warmupSeconds, durationSeconds: s.durationSeconds };
      const t = await measureHttp(targets.tai42, load);
      const y = await measureHttp(targets.yoga, load);
      points.push({
        connections,
        tai42: t,
        yoga: y,
        rpsRatio: round(t.rps / y.rps, 3),
        p99Ratio: round(t.p99 / y.p99, 3),
      });
      log(
        `  scaling ${String(connections).padStart(4)} conns  tai42 ${t.rps.toFixed(0).padStart(6)} req/s p99 ${t.p99} ms | yoga ${y.rps.toFixed(0).padStart(6)} req/s p99 ${y.p99} ms`,
      );
    }
    return { settings: s, points };
  } finally {
    await Promise.all(started.map((c) => c.stop()));
  }
}
