import { randomBytes } from "node:crypto";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { percentile, round } from "../lib/percentiles.ts";
import { ECHO_TEXT } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * Whether redaction stays bounded (issue 23, finding 4): many dispatches, one after the
 * other, through the in-process chokepoint (`rt.dispatcher.run`, no HTTP) on SQLite, of a
 * tool that `ctx.redact`s a fresh value each run, against the same count of `echo`
 * dispatches on a fresh runtime (what the run log's growth alone costs). Each side
 * reports the p50 of its first and of its last tenth; a flat cost is a last/first ratio
 * near the baseline's. Every tenth redacting dispatch is followed by an `echo`, so the
 * cost an ordinary run pays once many values were redacted is reported too.
 */
export interface RedactionResult {
  dispatches: number;
  /** The values the runtime remembers across runs (TAI_REDACT_CACHE_SIZE default). */
  cacheSize: number;
  /** p50 ms of the first and last tenth of the dispatches, and last/first. */
  redacting: Tenths;
  /** The `echo` dispatched after every tenth redacting one. */
  echoBetween: Tenths;
  /** `echo` alone, the same count, on a fresh runtime. */
  echoBaseline: Tenths;
  /** Last-tenth p50s: the redacting tool and the interleaved echo over the echo baseline. */
  ratios: { "redacting/echo": number; "echoBetween/echo": number };
}

interface Tenths {
  firstP50: number;
  lastP50: number;
  ratio: number;
}

const CALLER = { role: "USER", keyName: "bench", keyId: "bench" } as const;

async function runtimeOver(url: string): Promise<Runtime> {
  const app = new App();
  app.tool(
    { name: "redact_fresh", description: "Redacts a fresh value, then answers.", input: z.object({}) },
    (_input, ctx) => {
      ctx.redact(`fresh-${randomBytes(12).toString("hex")}`);
      return ECHO_TEXT;
    },
  );
  return createRuntime({
    config: { ...loadConfig({}), databaseUrl: url },
    app,
    loadModules: false,
    log: createLogger({}, () => {}),
  });
}

/** Milliseconds one dispatch of `tool` takes; a run that does not succeed fails the bench. */
async function timed(rt: Runtime, tool: string, input: Record<string, unknown>): Promise<number> {
  const t = performance.now();
  const run = await rt.dispatcher.run({ tool, input, caller: CALLER, door: "runtime" });
  const ms = performance.now() - t;
  if (run.status !== "SUCCEEDED") throw new Error(`bench: ${tool} ended ${run.status}: ${run.errorMessage}`);
  return ms;
}

function tenths(ms: number[]): Tenths {
  const tenth = Math.max(1, Math.floor(ms.length / 10));
  const firstP50 = percentile(ms.slice(0, tenth), 50);
  const lastP50 = percentile(ms.slice(-tenth), 50);
  return { firstP50: round(firstP50, 3), lastP50: round(lastP50, 3), ratio: round(lastP50 / firstP50) };
}

/** Dispatches `n` times over a fresh SQLite database, `between` after each tenth when given. */
async function measure(
  dbs: ScratchDatabases,
  n: number,
  tool: string,
  between?: string,
): Promise<{ main: number[]; between: number[] }> {
  const db = await dbs.create("sqlite");
  const rt = await runtimeOver(db.url);
  try {
    const main: number[] = [];
    const other: number[] = [];
    for (let i = 0; i < n; i++) {
      main.push(await timed(rt, tool, tool === "echo" ? { text: ECHO_TEXT } : {}));
      if (between && i % 10 === 9) other.push(await timed(rt, between, { text: ECHO_TEXT }));
    }
    return { main, between: other };
  } finally {
    await rt.close();
    await db.drop();
  }
}

export async function redactionScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<RedactionResult> {
  const n = settings.redaction.dispatches;
  const redacting = await measure(dbs, n, "redact_fresh", "echo");
  const baseline = await measure(dbs, n, "echo");
  const result: RedactionResult = {
    dispatches: n,
    cacheSize: loadConfig({}).redactCacheSize,
    redacting: tenths(redacting.main),
    echoBetween: tenths(redacting.between),
    echoBaseline: tenths(baseline.main),
    ratios: { "redacting/echo": 0, "echoBetween/echo": 0 },
  };
  result.ratios["redacting/echo"] = round(result.redacting.lastP50 / result.echoBaseline.lastP50);
  result.ratios["echoBetween/echo"] = round(result.echoBetween.lastP50 / result.echoBaseline.lastP50);
  const show = (name: string, t: Tenths) => `${name} p50 ${t.firstP50} → ${t.lastP50} ms (×${t.ratio})`;
  log(
    `  ${n} dispatches: ${show("redacting", result.redacting)}; ${show("echo between", result.echoBetween)}; ${show("echo alone", result.echoBaseline)}`,
  );
  return result;
}
