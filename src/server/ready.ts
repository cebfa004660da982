import type { Runtime } from "../runtime.ts";

/** How long each dependency has to answer a readiness check. */
const CHECK_TIMEOUT_MS = 2000;

/** How long one database probe (a read and a write) answers every readiness check. */
const PROBE_REUSE_MS = 1000;

/**
 * A `/ready` request within this long before SIGTERM means something (a load balancer, a
 * Kubernetes probe) routes by readiness, so the stop waits `TAI_UNREADY_SECONDS` for it to
 * move traffic away; with no such request (a plain `npm start` and Ctrl-C) it does not wait.
 */
export const POLLED_WINDOW_MS = 30_000;

/**
 * One dependency's state in a readiness answer. "refusing writes": the database answers
 * reads but a write probe failed (a full disk, a read-only database), or this instance
 * holds run outcomes the database has not taken yet. "draining": not checked, the instance is stopping.
 */
export type CheckState = "ok" | "unreachable" | "refusing writes" | "not configured" | "draining";

/** What `/ready` answers: 200 when `status` is "ready" or "degraded", else 503. */
export interface ReadyAnswer {
  status: "ready" | "degraded" | "draining" | "unavailable";
  checks: { database: CheckState; redis: CheckState };
}

/**
 * Readiness (docs/deploy.md §"Health and readiness"): whether a load balancer should send
 * this instance new work. Ready while the database answers and takes writes; "degraded" (still 200) when REDIS_URL
 * is set and Redis does not answer: every instance shares that Redis, so an outage of it would take all of them out
 * at once, while runs, cancels, revocations and configuration all go on through the database (docs/deploy.md §7).
 * Not ready from the moment a shutdown begins (SIGTERM) until the listener closes, while the runs in flight drain.
 * Liveness (`/health`) is separate: a server whose database is down is alive, and restarting it would not help.
 */
export class Readiness {
  private drainingSince: number | null = null;
  private polledAt: number | null = null;
  /** The last database probe, shared for {@link PROBE_REUSE_MS}. */
  private probed: { at: number; state: Promise<CheckState> } | null = null;

  constructor(private readonly rt: Pick<Runtime, "db" | "bus" | "instanceId" | "dispatcher">) {}

  /** From now on `/ready` answers 503 "draining" (it never turns back). */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /**
   * How long a stop keeps accepting runs after readiness turned 503: `unreadySeconds` when
   * `/ready` was requested within {@link POLLED_WINDOW_MS} before now, else 0.
   */
  unreadyWaitMs(unreadySeconds: number, now = Date.now()): number {
    return this.polledAt !== null && now - this.polledAt <= POLLED_WINDOW_MS ? unreadySeconds * 1000 : 0;
  }

  /** Checks the dependencies (each within 2 s) unless draining. */
  async check(): Promise<ReadyAnswer> {
    if (!this.draining) this.polledAt = Date.now();
    if (this.draining) return { status: "draining", checks: { database: "draining", redis: "draining" } };
    const [database, redis] = await Promise.all([
      this.database(),
      this.rt.bus.distributed
        ? probe(() => this.rt.bus.ping(CHECK_TIMEOUT_MS))
        : Promise.resolve<CheckState>("not configured"),
    ]);
    // The check may have run across the start of a drain.
    if (this.draining) return { status: "draining", checks: { database, redis } };
    const status = database !== "ok" ? "unavailable" : redis === "unreachable" ? "degraded" : "ready";
    return { status, checks: { database, redis } };
  }

  /**
   * Reads (`SELECT 1`), then writes: this instance's heartbeat row, a real write that needs
   * the disk (a rolled-back one may never reach it); and no run outcome kept unstored here.
   * One probe serves every request for {@link PROBE_REUSE_MS}: a flood of unauthenticated
   * `/ready` requests does not become a flood of writes.
   */
  private database(): Promise<CheckState> {
    const now = Date.now();
    if (this.probed && now - this.probed.at < PROBE_REUSE_MS) return this.probed.state;
    const state = (async (): Promise<CheckState> => {
      if ((await probe(() => this.rt.db.$queryRawUnsafe("SELECT 1"))) === "unreachable") return "unreachable";
      const writes = await probe(() =>
        this.rt.db.instance.updateMany({ where: { id: this.rt.instanceId }, data: { heartbeatAt: new Date() } }),
      );
      return writes === "ok" && this.rt.dispatcher.unstoredOutcomes === 0 ? "ok" : "refusing writes";
    })();
    this.probed = { at: now, state };
    return state;
  }
}

async function probe(fn: () => Promise<unknown>): Promise<CheckState> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), CHECK_TIMEOUT_MS))),
    ]);
    return "ok";
  } catch {
    return "unreachable";
  } finally {
    clearTimeout(timer);
  }
}
