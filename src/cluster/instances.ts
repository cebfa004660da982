import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../db/client.ts";

/**
 * The server processes sharing one database, and which of them are gone. An instance
 * is gone when it has not beaten for `deadAfterMs` (TAI_DEAD_AFTER_SECONDS), or at once
 * when it ran on this host and its process no longer exists: a server that crashed and
 * restarts within seconds must not wait for the heartbeat to expire before its
 * interrupted runs are failed.
 *
 * Instance ids are `<host>/<pid>/<uuid>`. A pid is trusted only on the same host, and
 * only when it is not this process's own pid: in a container every restart is pid 1, so
 * an instance with our pid that is not us is left to the heartbeat rule.
 */
export class InstanceRegistry {
  readonly id = `${hostname()}/${process.pid}/${randomUUID()}`;
  /** When this instance last stored its heartbeat (epoch ms); null before it registered. */
  lastBeatAt: number | null = null;
  /** How many instances were live at the last {@link liveIds} (1 before it): limits' per-instance shares use it. */
  liveCount = 1;
  /** Why each instance this one declared gone was declared so, by id (for the runs it fails). */
  private readonly goneReasons = new Map<string, string>();

  constructor(
    private readonly db: Db,
    /** Milliseconds between heartbeats. */
    private readonly heartbeatMs: number,
    /** Milliseconds without a heartbeat after which an instance is gone. @default 3 × heartbeatMs */
    private readonly deadAfterMs: number = heartbeatMs * 3,
  ) {}

  /** Records this instance as live. */
  async register(): Promise<void> {
    await this.db.instance.create({ data: { id: this.id } });
    this.lastBeatAt = Date.now();
  }

  /**
   * Refreshes this instance's heartbeat. Resolves false when its row was gone: another
   * instance declared it gone (it stalled past TAI_DEAD_AFTER_SECONDS) and failed its
   * runs; the row is made again, and the caller must stop what it still runs of those
   * (`cluster/fencing.ts`).
   */
  async beat(): Promise<boolean> {
    const { count } = await this.db.instance.updateMany({ where: { id: this.id }, data: { heartbeatAt: new Date() } });
    if (count === 0) await this.db.instance.create({ data: { id: this.id } }).catch(() => {});
    this.lastBeatAt = Date.now();
    return count === 1;
  }

  /** Forgets the instances that are gone and returns the ids of those still live. */
  async liveIds(): Promise<string[]> {
    const now = Date.now();
    const cutoff = new Date(now - this.deadAfterMs);
    const all = await this.db.instance.findMany({ select: { id: true, heartbeatAt: true } });
    const gone = all.filter((i) => i.id !== this.id && (i.heartbeatAt < cutoff || processGone(i.id)));
    for (const i of gone)
      this.goneReasons.set(
        i.id,
        i.heartbeatAt < cutoff
          ? `instance ${i.id} missed its heartbeats: none for ${((now - i.heartbeatAt.getTime()) / 1000).toFixed(1)} s (TAI_DEAD_AFTER_SECONDS is ${this.deadAfterMs / 1000}); declared gone by ${this.id}`
          : `instance ${i.id}'s process is no longer running on this host; declared gone by ${this.id}`,
      );
    if (gone.length) await this.db.instance.deleteMany({ where: { id: { in: gone.map((i) => i.id) } } });
    if (this.goneReasons.size > 1000) this.goneReasons.clear();
    const live = all.map((i) => i.id).filter((id) => !gone.some((g) => g.id === id));
    this.liveCount = Math.max(1, live.length);
    return live;
  }

  /**
   * Why `instanceId` is not live, as far as this instance knows (it may have been declared gone elsewhere, or never
   * registered).
   */
  whyGone(instanceId: string): string {
    return (
      this.goneReasons.get(instanceId) ??
      `instance ${instanceId} is not registered as live (declared gone earlier, or it never registered); seen by ${this.id}`
    );
  }

  /** Removes this instance's row (graceful shutdown). */
  async leave(): Promise<void> {
    await this.db.instance.delete({ where: { id: this.id } }).catch(() => {});
  }
}

/** Whether `id` names a process on this host that no longer exists. */
export function processGone(id: string): boolean {
  const [host, pidText] = id.split("/");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}
