import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { ScratchDatabases } from "../lib/databases.ts";
import type { BenchSettings } from "../settings.ts";

export interface StartupResult {
  settings: BenchSettings["startup"];
  /** Median wall-clock milliseconds of each command, from spawn to exit (or to "listening"). */
  medianMs: { node: number; help: number; serve: number };
  /** Each median ÷ the bare `node -e 0` median of the same run. */
  ratios: { "help/node": number; "serve/node": number };
}

const TAI = resolve("bin/tai.mjs");

/** Milliseconds from spawn until `done` says so on stdout (then the child is stopped), or until it exits. */
function timeChild(args: string[], env: NodeJS.ProcessEnv, timeoutSeconds: number, done?: (out: string) => boolean): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let at: number | null = null;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")}: no result within ${timeoutSeconds}s\n${out}${err}`));
    }, timeoutSeconds * 1000);
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (at === null && done?.(out)) {
        at = performance.now() - t0;
        child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (done && at === null) reject(new Error(`${args.join(" ")} exited ${code} before it was ready\n${out}${err}`));
      else if (!done && code !== 0) reject(new Error(`${args.join(" ")} exited ${code}\n${out}${err}`));
      else resolvePromise(at ?? performance.now() - t0);
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return Math.round((s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) * 10) / 10;
}

/**
 * Start-up: bare `node -e 0` (the baseline), `tai --help`, and `tai serve` until it prints
 * "listening" on a warm (already migrated, already started once) SQLite database. Each is
 * run `runs` times in turn after one discarded warm-up; medians and ratios to bare node.
 */
export async function startupScenario(settings: BenchSettings, dbs: ScratchDatabases, log: (line: string) => void): Promise<StartupResult> {
  const s = settings.startup;
  const db = await dbs.create("sqlite");
  try {
    const env = { ...process.env, DATABASE_URL: db.url, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "production" };
    const node = () => timeChild(["-e", "0"], env, s.timeoutSeconds);
    const help = () => timeChild([TAI, "--help"], env, s.timeoutSeconds);
    const serve = () => timeChild([TAI, "serve"], env, s.timeoutSeconds, (out) => /listening on /.test(out));
    await node();
    await help();
    await serve(); // the first start on the database creates the admin key
    const times = { node: [] as number[], help: [] as number[], serve: [] as number[] };
    for (let i = 0; i < s.runs; i++) {
      times.node.push(await node());
      times.help.push(await help());
      times.serve.push(await serve());
    }
    const medianMs = { node: median(times.node), help: median(times.help), serve: median(times.serve) };
    const ratio = (x: number) => Math.round((x / medianMs.node) * 100) / 100;
    log(`  node -e 0 ${medianMs.node} ms, tai --help ${medianMs.help} ms, tai serve → listening ${medianMs.serve} ms (medians of ${s.runs})`);
    return { settings: s, medianMs, ratios: { "help/node": ratio(medianMs.help), "serve/node": ratio(medianMs.serve) } };
  } finally {
    await db.drop();
  }
}
