import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/tai.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What a `tai` child process did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/tai.mjs ...args` from `cwd` (default: the repository root). The child gets
 * a clean tai environment (no inherited TAI_*, DATABASE_URL or HOST) plus `env`, with
 * TAI_LOG=silent.
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  cwd = ROOT,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnTai(args, env, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function spawnTai(
  args: string[],
  env: Record<string, string | undefined>,
  cwd = ROOT,
): ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("TAI_") && !["DATABASE_URL", "HOST", "PORT", "REDIS_URL"].includes(k),
    ),
  );
  return spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...base, TAI_LOG: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A long-running `tai` child (e.g. `tai serve`). */
export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with stdout once it contains `text`; rejects if the process exits first. */
  waitFor(text: string, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `node bin/tai.mjs ...args` and leaves it running. */
export function startCli(args: string[], env: Record<string, string | undefined>): CliProcess {
  const child = spawnTai(args, env);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(text, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => done(new Error(`timed out waiting for "${text}"; stdout: ${out}; stderr: ${err}`)),
          timeoutMs,
        );
        const check = () => out.includes(text) && done();
        const onExit = (code: number | null) =>
          done(new Error(`tai exited (${code}) before printing "${text}"; stderr: ${err}`));
        function done(e?: Error) {
          clearTimeout(timer);
          child.stdout.off("data", check);
          child.off("exit", onExit);
          if (e) reject(e);
          else resolve(out);
        }
        child.stdout.on("data", check);
        child.once("exit", onExit);
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs tasks with at most `n` in flight (CLI spawns are CPU-heavy on a small machine). */
export function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    // A finishing task hands its slot straight to the next waiter.
    if (active < n) active++;
    else await new Promise<void>((r) => queue.push(r));
    try {
      return await task();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * A TCP port free on 127.0.0.1 right now, for a `tai serve` child to listen on. It is taken below the kernel's
 * ephemeral range (32768-60999 here), so no outgoing connection of a test running beside this one can be given it as
 * its local port between this call and the child's listen, which a port from `listen(0)` could (CI saw it); each
 * vitest worker draws from its own slice, so two workers never pick the same port.
 */
export async function freePort(): Promise<number> {
  const slice = 2000;
  const base = 12_000 + (Number(process.env.VITEST_POOL_ID ?? 0) % 10) * slice;
  for (let tries = 0; tries < 200; tries++) {
    const port = base + ((nextPort++ + tries * 7) % slice);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${base}-${base + slice - 1}`);
}
let nextPort = Math.floor(Math.random() * 2000);

function canListen(port: number): Promise<boolean> {
  const srv = createServer();
  return new Promise((resolve) => {
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** Resolves with the first value `probe` gives that is not undefined, probed every 25 ms, or rejects after `ms`. */
export async function until<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
