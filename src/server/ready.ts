import type { Runtime } from "../runtime.ts";

/** How long each dependency has to answer a readiness check. */
const CHECK_TIMEOUT_MS = 2000;

/** One dependency's state in a readiness answer. */
export type CheckState = "ok" | "unreachable" | "not configured";

/** What `/ready` answers: 200 when `status` is "ready", else 503. */
export interface ReadyAnswer {
  status: "ready" | "draining" | "unavailable";
  checks: { database: CheckState; redis: CheckState };
}

/**
 * Readiness (docs/deploy.md §"Health and readiness"): whether a load balancer should send
 * this instance new work. Ready while the database answers and, when REDIS_URL is set,
 * Redis answers; not ready from the moment a shutdown begins (SIGTERM) until the
 * listener closes, while the runs in flight drain. Liveness (`/health`) is separate: a
 * server whose database is down is alive, and restarting it would not help.
 */
export class Readiness {
  private drainingSince: number | null = null;

  constructor(private readonly rt: Pick<Runtime, "db" | "bus">) {}

  /** From now on `/ready` answers 503 "draining" (it never turns back). */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Checks the dependencies (each within 2 s) unless draining. */
  async check(): Promise<ReadyAnswer> {
    if (this.draining) return { status: "draining", checks: { database: "not configured", redis: "not configured" } };
    const [database, redis] = await Promise.all([
      probe(() => this.rt.db.$queryRawUnsafe("SELECT 1")),
      this.rt.bus.distributed ? probe(() => this.rt.bus.ping(CHECK_TIMEOUT_MS)) : Promise.resolve<CheckState>("not configured"),
    ]);
    // The check may have run across the start of a drain.
    if (this.draining) return { status: "draining", checks: { database, redis } };
    return { status: database !== "unreachable" && redis !== "unreachable" ? "ready" : "unavailable", checks: { database, redis } };
  }
}

async function probe(fn: () => Promise<unknown>): Promise<CheckState> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), CHECK_TIMEOUT_MS)))]);
    return "ok";
  } catch {
    return "unreachable";
  } finally {
    clearTimeout(timer);
  }
}
