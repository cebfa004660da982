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
 * instances), each side after its own warm-up. A block of each makes a pair; the ratio is the median of the pairs'
 * (one block slowed by another process on the machine moves it little), and beside it the same from this process's
 * CPU time per run, which another process's load does not count.
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
  /** limited ÷ plain runs/s: the median over the pairs of blocks. */
  ratio: number;
  /** This process's CPU time per run (user + system), µs, medians over the blocks. */
  plainCpuMicros: number;
  limitedCpuMicros: number;
  /** plain ÷ limited CPU per run: the median over the pairs. */
  cpuRatio: number;
}

/** One block: runs/s, and this process's CPU time per run in µs. */
interface Block {
  perSecond: number;
  cpuMicros: number;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

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

/** Runs/s of `tool` with `callers` callers for `seconds`, and CPU per run; a run that does not succeed fails it. */
async function block(rt: Runtime, tool: string, callers: number, seconds: number): Promise<Block> {
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpu = process.cpuUsage();
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
  const used = process.cpuUsage(cpu);
  return { perSecond: runs / ((performance.now() - started) / 1000), cpuMicros: (used.user + used.system) / runs };
}

async function side(dbs: ScratchDatabases, s: BenchSettings["limits"], redisUrl?: string): Promise<Side> {
  const db = await dbs.create("sqlite");
  const rt = await runtimeOver(db.url, redisUrl);
  try {
    await block(rt, "plain", s.callers, s.warmupSeconds);
    await block(rt, "limited", s.callers, s.warmupSeconds);
    const plain: Block[] = [];
    const limited: Block[] = [];
    for (let i = 0; i < s.blocks; i++) {
      plain.push(await block(rt, "plain", s.callers, s.blockSeconds));
      limited.push(await block(rt, "limited", s.callers, s.blockSeconds));
    }
    const pairs = (f: (p: Block, l: Block) => number) => median(plain.map((p, i) => f(p, limited[i])));
    return {
      plainRunsPerSecond: round(median(plain.map((b) => b.perSecond)), 1),
      limitedRunsPerSecond: round(median(limited.map((b) => b.perSecond)), 1),
      ratio: round(pairs((p, l) => l.perSecond / p.perSecond)),
      plainCpuMicros: round(median(plain.map((b) => b.cpuMicros)), 1),
      limitedCpuMicros: round(median(limited.map((b) => b.cpuMicros)), 1),
      cpuRatio: round(pairs((p, l) => p.cpuMicros / l.cpuMicros)),
    };
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
  const say = (name: string, x: Side) =>
    log(
      `  ${name}: plain ${x.plainRunsPerSecond} runs/s, limited ${x.limitedRunsPerSecond} (×${x.ratio}); CPU per run ` +
        `${x.plainCpuMicros} µs vs ${x.limitedCpuMicros} µs (×${x.cpuRatio})`,
    );
  say("embedded", embedded);
  const redis = await side(dbs, s, settings.redisUrl);
  say("Redis", redis);
  return { callers: s.callers, blockSeconds: s.blockSeconds, blocks: s.blocks, embedded, redis };
}
