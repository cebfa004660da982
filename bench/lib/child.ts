import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The bench folder; child scripts are named relative to it. */
export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Options of {@link startChild}. */
export interface ChildOptions {
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Extra environment for the child. */
  env?: NodeJS.ProcessEnv;
  /** How long the child may take to report ready. @default 60_000 */
  readyTimeoutMs?: number;
}

/** A running child process: a server under test or a client pool. */
export interface Child {
  name: string;
  pid: number;
  url: string;
  /** Sends a command and resolves with its answer; rejects after `timeoutMs`. */
  call<T = unknown>(cmd: string, arg?: unknown, timeoutMs?: number): Promise<T>;
  /** Asks the child to stop, then kills it (by its pid) if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/**
 * Starts `script` (a .ts file under bench/) in its own Node process with tsx, an IPC
 * channel and --expose-gc, passing `arg` as JSON; resolves once it reports ready.
 */
export function startChild(name: string, script: string, arg: unknown, options: ChildOptions = {}): Promise<Child> {
  const child = spawn(
    process.execPath,
    ["--expose-gc", ...(options.nodeArgs ?? []), "--import", "tsx", resolve(BENCH_DIR, script), JSON.stringify(arg)],
    {
      stdio: ["ignore", "inherit", "pipe", "ipc"],
      env: { ...process.env, TAI_LOG: "silent", ...options.env },
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void; timer: NodeJS.Timeout }>();
  let nextId = 1;
  let exited = false;
  const exit = new Promise<void>((r) => child.once("exit", () => ((exited = true), r())));
  child.on("message", (m: { id?: number; ok?: boolean; value?: unknown; error?: string }) => {
    if (m.id === undefined) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.ok(m.value);
    else p.fail(new Error(`${name}: ${m.error}`));
  });
  void exit.then(() => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.fail(new Error(`${name} exited${stderr ? `: ${stderr}` : ""}`));
    }
    pending.clear();
  });

  const handle = (url: string): Child => ({
    name,
    pid: child.pid!,
    url,
    call<T>(cmd: string, a?: unknown, timeoutMs = 120_000) {
      return new Promise<T>((ok, fail) => {
        if (exited) return fail(new Error(`${name} is not running${stderr ? `: ${stderr}` : ""}`));
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          fail(new Error(`${name}: "${cmd}" got no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { ok: ok as (v: unknown) => void, fail, timer });
        child.send({ id, cmd, arg: a });
      });
    },
    async stop() {
      if (exited) return;
      if (child.connected) child.send({ id: 0, cmd: "stop" });
      else child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(killer);
    },
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${name} did not report ready within ${options.readyTimeoutMs ?? 60_000} ms${stderr ? `: ${stderr}` : ""}`,
        ),
      );
    }, options.readyTimeoutMs ?? 60_000);
    const onMessage = (m: { type?: string; url?: string; error?: string }) => {
      if (m.type === "ready") {
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(handle(m.url!));
      } else if (m.type === "failed") {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start: ${m.error}`));
      }
    };
    child.on("message", onMessage);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready${stderr ? `: ${stderr}` : ""}`));
    });
  });
}

/** Runs `fn` with a started child and always stops it. */
export async function withChild<T>(started: Promise<Child>, fn: (c: Child) => Promise<T>): Promise<T> {
  const c = await started;
  try {
    return await fn(c);
  } finally {
    await c.stop();
  }
}
