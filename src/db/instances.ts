import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "./client.ts";

/**
 * The server processes sharing one database, and which of them are gone. An instance
 * is gone when it missed three heartbeats, or at once when it ran on this host and its
 * process no longer exists: a server that crashed and restarts within seconds must not
 * wait for the heartbeat to expire before its interrupted runs are failed.
 *
 * Instance ids are `<host>/<pid>/<uuid>`. A pid is trusted only on the same host, and
 * only when it is not this process's own pid: in a container every restart is pid 1, so
 * an instance with our pid that is not us is left to the heartbeat rule.
 */
export class InstanceRegistry {
  readonly id = `${hostname()}/${process.pid}/${randomUUID()}`;

  constructor(
    private readonly db: Db,
    /** Milliseconds between heartbeats; three missed ones mark an instance gone. */
    private readonly heartbeatMs: number,
  ) {}

  /** Records this instance as live. */
  async register(): Promise<void> {
    await this.db.instance.create({ data: { id: this.id } });
  }

  /** Refreshes this instance's heartbeat (recreating its row if another instance dropped it). */
  async beat(): Promise<void> {
    await this.db.instance.upsert({ where: { id: this.id }, create: { id: this.id }, update: { heartbeatAt: new Date() } });
  }

  /** Forgets the instances that are gone and returns the ids of those still live. */
  async liveIds(): Promise<string[]> {
    const cutoff = new Date(Date.now() - this.heartbeatMs * 3);
    const all = await this.db.instance.findMany({ select: { id: true, heartbeatAt: true } });
    const gone = all.filter((i) => i.id !== this.id && (i.heartbeatAt < cutoff || processGone(i.id))).map((i) => i.id);
    if (gone.length) await this.db.instance.deleteMany({ where: { id: { in: gone } } });
    return all.map((i) => i.id).filter((id) => !gone.includes(id));
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
