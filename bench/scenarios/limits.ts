import { z } from "zod";
import { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { round } from "../lib/percentiles.ts";
import { ECHO_TEXT } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * What declared limits cost (issue 29): in one runtime on SQLite, `callers` in-process callers (`rt.dispatcher.run`,
 * door graphql, so admission control counts them too) dispatch as fast as they can, in alternating blocks, a tool
 * without limits and the same tool under a generous concurrency cap, rate and breaker that never refuse. Runs/s of
 * each and limited ÷ plain, with the limits counted in this process (the embedded default) and in Redis (several
 * instances), each side after its own warm-up.
 */
export interface LimitsResult {
  callers: number;
  blockSeconds: number;
  blocks: number;
  embedded: Side;
  redis: Side;
}

interface Side {
  plainRunsPerSecond: number;
  limitedRunsPerSecond: number;
  /** limited ÷ plain. */
  ratio: number;
}

const CALLER = { role: "USER", keyName: "bench", keyId: "bench" } as const;
const GENEROUS = {
  concurrency: { max: 10_000 },
  rate: { tokens: 1_000_000, intervalSeconds: 1 },
  breaker: { failures: 1000 },
} as const;

async function runtimeOver(url: string, redisUrl?: string): Promise<Runtime> {
  const app = new App();
  const body = () => ECHO_TEXT;
  app.tool({ name: "plain", description: "Answers at once.", input: z.object({}) }, body);
  app.tool({ name: "limited", description: "Answers at once.", input: z.object({}), limits: GENEROUS }, body);
  return createRuntime({
    config: { ...loadConfig({}), databaseUrl: url, redisUrl, redisPrefix: `tai42-bench-${Date.now()}:` },
    app,
    loadModules: false,
    log: createLogger({}, () => {}),
  });
}

/** Runs/s of `tool` with `callers` callers for `seconds`; a run that does not succeed fails the bench. */
async function block(rt: Runtime, tool: string, callers: number, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  let runs = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        const run = await rt.dispatcher.run({ tool, input: {}, caller: CALLER, door: "graphql" });
        if (run.status !== "SUCCEEDED") throw new Error(`bench: ${tool} ended ${run.status}: ${run.errorMessage}`);
        runs++;
      }
    }),
  );
  return runs / ((performance.now() - started) / 1000);
}

async function side(dbs: ScratchDatabases, s: BenchSettings["limits"], redisUrl?: string): Promise<Side> {
  const db = await dbs.create("sqlite");
  const rt = await runtimeOver(db.url, redisUrl);
  try {
    await block(rt, "plain", s.callers, s.warmupSeconds);
    await block(rt, "limited", s.callers, s.warmupSeconds);
    const plain: number[] = [];
    const limited: number[] = [];
    for (let i = 0; i < s.blocks; i++) {
      plain.push(await block(rt, "plain", s.callers, s.blockSeconds));
      limited.push(await block(rt, "limited", s.callers, s.blockSeconds));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const p = mean(plain);
    const l = mean(limited);
    return { plainRunsPerSecond: round(p, 1), limitedRunsPerSecond: round(l, 1), ratio: round(l / p) };
  } finally {
    await rt.close();
    await db.drop();
  }
}

export async function limitsScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<LimitsResult> {
  const s = settings.limits;
  const embedded = await side(dbs, s);
  log(
    `  embedded: plain ${embedded.plainRunsPerSecond} runs/s, limited ${embedded.limitedRunsPerSecond} (×${embedded.ratio})`,
  );
  const redis = await side(dbs, s, settings.redisUrl);
  log(`  Redis: plain ${redis.plainRunsPerSecond} runs/s, limited ${redis.limitedRunsPerSecond} (×${redis.ratio})`);
  return { callers: s.callers, blockSeconds: s.blockSeconds, blocks: s.blocks, embedded, redis };
}
