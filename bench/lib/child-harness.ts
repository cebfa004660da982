/**
 * The child side of a benchmarked server. Every server under test runs in its own process
 * (so its RSS and CPU are its own), started by the bench script and driven over IPC:
 * it reports `ready` with its URL, answers commands, and stops on `stop`, on SIGTERM, when
 * the parent goes away, or at the latest after `maxLifetimeMs`.
 */

/** A started server, as a benchmark child exposes it. */
export interface ChildServer {
  /** The URL the load is sent to. */
  url: string;
  stop(): Promise<void>;
  /** Scenario-specific commands (gates, counters, persisted-row checks). */
  commands?: Record<string, (arg: unknown) => unknown>;
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes on one host. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The JSON argument the parent passed as the last command-line argument. */
export function childArgs<T>(): T {
  return JSON.parse(process.argv.at(-1) ?? "{}") as T;
}

/**
 * Memory once settled: full collections (the child runs with --expose-gc) with pauses
 * between them, so that freed pages are returned before RSS is read.
 */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 250));
  }
  return process.memoryUsage();
}

/**
 * Starts a server with `start` and serves the parent's commands. Built-in commands: `mem`
 * (memory after GC), `stop`. Contract: `start` binds to 127.0.0.1 only.
 */
export function runChild(start: () => Promise<ChildServer>, maxLifetimeMs = 15 * 60_000): void {
  if (!process.send)
    throw new Error("a benchmark server must be started by the bench script (it needs an IPC channel)");
  const send = (m: unknown) => process.send?.(m);
  let server: ChildServer | null = null;
  let stopping: Promise<void> | null = null;
  const stop = (code = 0) => {
    stopping ??= (async () => {
      try {
        await server?.stop();
      } finally {
        // A normal exit, so --cpu-prof writes its profile.
        process.exit(code);
      }
    })();
    return stopping;
  };
  setTimeout(() => void stop(3), maxLifetimeMs).unref();
  process.on("SIGTERM", () => void stop());
  process.on("disconnect", () => void stop());
  process.on("message", async (raw) => {
    const { id, cmd, arg } = raw as { id: number; cmd: string; arg?: unknown };
    try {
      if (cmd === "stop") {
        send({ id, ok: true, value: null });
        await stop();
        return;
      }
      let value: unknown;
      if (cmd === "mem") value = await settledMemory();
      else {
        const fn = server?.commands?.[cmd];
        if (!fn) throw new Error(`unknown command "${cmd}"`);
        value = await fn(arg);
      }
      send({ id, ok: true, value });
    } catch (e) {
      send({ id, ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  });
  start()
    .then((s) => {
      server = s;
      send({ type: "ready", url: s.url, pid: process.pid });
    })
    .catch((e: unknown) => {
      send({ type: "failed", error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      void stop(1);
    });
}
