import type { Db } from "../db/client.ts";
import type { Bus } from "../events/bus.ts";
import { failureLog, type FailureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import { readSurfaceVersion } from "../registry/surface-version.ts";

/** What {@link SurfaceSync} keeps current: the stored surface. */
export interface SurfaceLoader {
  /**
   * Reloads from the store. Contract: a call made after a write returns once a load that started after it has applied.
   */
  load(): Promise<void>;
  /** The stored version the applied state was read at. */
  readonly version: number;
}

/**
 * Keeps this instance's surface converged with the store (docs/deploy.md §"Configuration
 * converges"). Every configuration write bumps the stored surface version in its own
 * transaction; an instance applies a write it made before answering, hears the others'
 * on the bus (`configChanged`, the fast path) and, because Redis delivers at most once
 * and the CLI may have no Redis at all, also reads the version every `everyMs` and
 * reloads when it moved (the repair path). Every dispatch asks
 * {@link SurfaceSync.refreshIfStale} before its lookup, so a preset created or a manifest
 * activated on another instance before the dispatch started is what it sees.
 */
export class SurfaceSync {
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<boolean> | null = null;
  private nextCheck: Promise<boolean> | null = null;
  /** When the version check under way began (epoch ms); null when none is. */
  private checkingSince: number | null = null;
  private readonly unlisten: () => void;
  /** The poll fails every tick while the database is out: a few lines count it. */
  private readonly pollFailures: FailureLog;

  constructor(
    private readonly db: Db,
    private readonly loader: SurfaceLoader,
    private readonly bus: Bus,
    private readonly instanceId: string,
    private readonly log: Logger,
    /** Reads the stored version (a check per dispatch: `registry/surface-version.ts` versionReader). */
    private readonly readVersion: () => Promise<number> = () => readSurfaceVersion(db),
  ) {
    this.pollFailures = failureLog(log);
    this.unlisten = bus.listen("configChanged", ({ instanceId: from, version }) => {
      if (from === instanceId || (version !== undefined && version <= this.loader.version)) return;
      this.loader.load().catch((e: Error) => log.error("reloading stored configuration failed", { error: e.message }));
    });
  }

  /** Reads the stored version every `everyMs` and reloads when it differs from the applied one. */
  start(everyMs: number): void {
    this.timer = setInterval(
      () =>
        void this.refreshIfStale().catch((e: Error) =>
          this.pollFailures.failed("warn", "checking the stored configuration version failed", { error: e.message }),
        ),
      everyMs,
    );
    this.timer.unref();
  }

  /**
   * After a local write: applies it here, then tells the other instances. Never throws: the write is stored, and the
   * poll repairs a failed reload.
   */
  async changed(): Promise<void> {
    try {
      await this.loader.load();
    } catch (e) {
      this.log.error("applying a stored configuration change failed; the next version check retries", {
        error: (e as Error).message,
      });
    }
    this.bus.publish("configChanged", { instanceId: this.instanceId, version: this.loader.version });
  }

  /**
   * Reloads when the stored version moved past the applied one; true when it reloaded. One check at a time, and a
   * call answered by a check that reads the version after it: one already running may have read before the caller's
   * cause (a write on another instance), so the caller waits for the next, shared by every caller that waited.
   */
  refreshIfStale(): Promise<boolean> {
    if (!this.checking) {
      this.checkingSince = Date.now();
      this.checking = this.checkOnce().finally(() => {
        this.checking = null;
        this.checkingSince = null;
      });
      return this.checking;
    }
    this.nextCheck ??= this.checking
      .catch(() => false)
      .then(() => {
        this.nextCheck = null;
        return this.refreshIfStale();
      });
    return this.nextCheck;
  }

  /** How long the version check under way has waited on the database, in ms (admission control's database wait). */
  stalledMs(): number {
    return this.checkingSince === null ? 0 : Date.now() - this.checkingSince;
  }

  private async checkOnce(): Promise<boolean> {
    if ((await this.readVersion()) === this.loader.version) return false;
    await this.loader.load();
    return true;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unlisten();
  }
}
