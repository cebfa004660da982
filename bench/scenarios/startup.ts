import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildIfStale } from "../../scripts/build.mjs";
import type { ScratchDatabases } from "../lib/databases.ts";
import type { BenchSettings } from "../settings.ts";

/** The commands timed, baselines and diagnostics included. */
export const STARTUP_COMMANDS = [
  "node",
  "commander",
  "help",
  "toolsList",
  "bareYoga",
  "serveWarm",
  "serveFresh",
  "helpNoCache",
  "toolsListNoCache",
  "serveWarmNoCache",
] as const;
export type StartupCommand = (typeof STARTUP_COMMANDS)[number];

export interface StartupResult {
  settings: BenchSettings["startup"];
  /** Median wall-clock milliseconds from spawn to exit, or to the line saying a server listens. */
  medianMs: Record<StartupCommand, number>;
  /** Median CPU milliseconds (user + system) the child had used by then; null without /proc. */
  cpuMs: Record<StartupCommand, number> | null;
  ratios: { "help/commander": number; "serveWarm/bareYoga": number; "serveFresh/bareYoga": number };
  /**
   * The packages the bare yoga baseline imports: those tai42's own modules imported on a recorded `tai serve` start.
   */
  baselineImports: string[];
}

const TAI = resolve("bin/tai.mjs");
const BARE_CLI = resolve("bench/servers/bare-cli.mjs");
const BARE_YOGA = resolve("bench/servers/bare-yoga-start.mjs");
const RECORDER = resolve("bench/lib/record-imports.mjs");
const READY = /listening on /;

/** CPU milliseconds `pid` has used (Linux /proc; clock ticks of 10 ms), or NaN. */
function cpuOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Wall and CPU milliseconds from spawn until `ready` matches stdout (then the child is sent
 * SIGTERM and awaited), or until it exits 0 when there is no `ready`.
 */
function timeChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutSeconds: number,
  ready?: RegExp,
): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let at: { wall: number; cpu: number } | null = null;
    // The child's CPU is read last while it runs: /proc has nothing once it has exited.
    let cpu = Number.NaN;
    const poll = setInterval(() => {
      const c = cpuOf(child.pid);
      if (!Number.isNaN(c)) cpu = c;
    }, 5);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")}: no result within ${timeoutSeconds}s\n${out}${err}`));
    }, timeoutSeconds * 1000);
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (ready && at === null && ready.test(out)) {
        at = { wall: performance.now() - t0, cpu: cpuOf(child.pid) };
        child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    child.on("exit", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      if (ready && at === null) reject(new Error(`${args.join(" ")} exited ${code} before it was ready\n${out}${err}`));
      else if (!ready && code !== 0) reject(new Error(`${args.join(" ")} exited ${code}\n${out}${err}`));
      else resolvePromise(at ?? { wall: performance.now() - t0, cpu });
    });
  });
}

function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  const m = s.length >> 1;
  return Math.round((s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) * 10) / 10;
}

/**
 * Start-up, each command against its bare baseline in the same run:
 * - `tai --help` against a bare commander script with tai's top-level commands;
 * - `tai tools list` on a warm database (an absolute bound: a read answers at once);
 * - `tai serve` until it prints "listening", on a warm database (migrated, started once)
 *   and on a fresh one (created, migrated and given its first admin key by that start),
 *   against a bare graphql-yoga + graphql-ws server that first imports every package
 *   tai42's own modules import on the way to "listening" (recorded from one `tai serve`
 *   start in this run), so the ratio isolates tai42's own start-up work.
 * tai keeps Node's compile cache (bin/tai.mjs); the baselines are bare scripts without it,
 * and the `…NoCache` diagnostics are tai with it turned off. One discarded warm-up round,
 * then `runs` rounds in the same order; medians of wall and CPU time.
 */
export async function startupScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<StartupResult> {
  const s = settings.startup;
  // `tai` refuses a dist/ older than the sources; the numbers are those of the sources.
  buildIfStale(undefined, { quiet: true });
  const dir = resolve(".tmp", `bench-startup-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const warm = await dbs.create("sqlite");
  try {
    const base: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "production" };
    delete base.NODE_COMPILE_CACHE;
    delete base.NODE_DISABLE_COMPILE_CACHE;
    const tai = (databaseUrl: string, compileCache = true): NodeJS.ProcessEnv => ({
      ...base,
      DATABASE_URL: databaseUrl,
      ...(compileCache ? {} : { NODE_DISABLE_COMPILE_CACHE: "1" }),
    });
    const importsFile = join(dir, "imports.json");
    // The first start on the warm database creates its admin key and records the imports.
    await timeChild(
      ["--import", RECORDER, TAI, "serve"],
      { ...tai(warm.url), RECORD_IMPORTS_OUT: importsFile },
      s.timeoutSeconds,
      READY,
    );
    const baselineImports = JSON.parse(readFileSync(importsFile, "utf8")) as string[];
    let fresh = 0;
    const commands: Record<StartupCommand, () => Promise<{ wall: number; cpu: number }>> = {
      node: () => timeChild(["-e", "0"], base, s.timeoutSeconds),
      commander: () => timeChild([BARE_CLI, "--help"], base, s.timeoutSeconds),
      help: () => timeChild([TAI, "--help"], tai(warm.url), s.timeoutSeconds),
      toolsList: () => timeChild([TAI, "tools", "list"], tai(warm.url), s.timeoutSeconds),
      bareYoga: () => timeChild([BARE_YOGA], { ...base, BARE_IMPORTS: importsFile }, s.timeoutSeconds, READY),
      serveWarm: () => timeChild([TAI, "serve"], tai(warm.url), s.timeoutSeconds, READY),
      serveFresh: async () => {
        const file = join(dir, `fresh-${++fresh}.db`);
        try {
          return await timeChild([TAI, "serve"], tai(`file:${file}`), s.timeoutSeconds, READY);
        } finally {
          for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
        }
      },
      helpNoCache: () => timeChild([TAI, "--help"], tai(warm.url, false), s.timeoutSeconds),
      toolsListNoCache: () => timeChild([TAI, "tools", "list"], tai(warm.url, false), s.timeoutSeconds),
      serveWarmNoCache: () => timeChild([TAI, "serve"], tai(warm.url, false), s.timeoutSeconds, READY),
    };
    for (const c of STARTUP_COMMANDS) await commands[c]();
    const wall = Object.fromEntries(STARTUP_COMMANDS.map((c) => [c, [] as number[]])) as Record<
      StartupCommand,
      number[]
    >;
    const cpu = Object.fromEntries(STARTUP_COMMANDS.map((c) => [c, [] as number[]])) as Record<
      StartupCommand,
      number[]
    >;
    for (let i = 0; i < s.runs; i++)
      for (const c of STARTUP_COMMANDS) {
        const t = await commands[c]();
        wall[c].push(t.wall);
        cpu[c].push(t.cpu);
      }
    const medianMs = Object.fromEntries(STARTUP_COMMANDS.map((c) => [c, median(wall[c])])) as Record<
      StartupCommand,
      number
    >;
    const cpuMedians = Object.fromEntries(STARTUP_COMMANDS.map((c) => [c, median(cpu[c])])) as Record<
      StartupCommand,
      number
    >;
    const cpuMs = Object.values(cpuMedians).some(Number.isNaN) ? null : cpuMedians;
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const ratios = {
      "help/commander": ratio(medianMs.help, medianMs.commander),
      "serveWarm/bareYoga": ratio(medianMs.serveWarm, medianMs.bareYoga),
      "serveFresh/bareYoga": ratio(medianMs.serveFresh, medianMs.bareYoga),
    };
    log(
      `  tai --help ${medianMs.help} ms (bare commander ${medianMs.commander} ms, ×${ratios["help/commander"]}); tai tools list ${medianMs.toolsList} ms; ` +
        `tai serve → listening ${medianMs.serveWarm} ms warm, ${medianMs.serveFresh} ms fresh (bare yoga, same imports, ${medianMs.bareYoga} ms, ×${ratios["serveWarm/bareYoga"]}) (medians of ${s.runs})`,
    );
    return { settings: s, medianMs, cpuMs, ratios, baselineImports };
  } finally {
    await warm.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
