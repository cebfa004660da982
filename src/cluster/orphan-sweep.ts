import { failAgentRuns, type InterruptedAgentRuns } from "../agent/interrupted-runs.ts";
import type { OrphanOutcome } from "../dispatch/run-redrive.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { Duty } from "./duty.ts";

/** What fails agent runs left RUNNING by instances that are gone. */
export interface AgentOrphans extends InterruptedAgentRuns {
  /**
   * Continues the SUSPENDED and ASKED agent runs whose answers are all in (a crash between an answer and its
   * continuation); returns their ids.
   */
  continueAnswered?(): Promise<string[]>;
}

/** What {@link OrphanSweep} needs from the runtime. */
export interface OrphanSweepDeps {
  /** This instance's heartbeat, which instances are live, and why the others are not. */
  instances: {
    /** Resolves false when this instance had been declared gone (see {@link InstanceRegistry.beat}). */
    beat(): Promise<boolean | void>;
    liveIds(): Promise<string[]>;
    whyGone?(instanceId: string): string;
  };
  /** Re-drives or marks OUTCOME_UNKNOWN the tool runs of instances not in `liveIds` (the dispatcher). */
  runs: { settleOrphans(liveIds: string[], whyGone: (instanceId: string) => string): Promise<OrphanOutcome> };
  agents: AgentOrphans;
  bus: Bus;
  log: Logger;
  /** Milliseconds between heartbeats, each followed by a sweep. */
  everyMs: number;
  /**
   * Whether to sweep at all; without, only the heartbeat runs (`tools run`: its runs must not look orphaned). @default
   * true
   */
  sweeps?: boolean;
  /**
   * After each heartbeat: stops the runs held here that another instance already ended
   * (`cluster/fencing.ts`). `declaredGone`: the beat found this instance's row removed.
   */
  fence?: (declaredGone: boolean) => Promise<void>;
}

/** The runs one sweep failed, by engine. */
export interface SweepResult {
  runs: string[];
  agentRuns: string[];
}

/**
 * The one recovery of both run engines (docs/run-lifecycle.md §8, docs/agent-stream.md
 * §4): tool runs and agent runs left RUNNING by an instance that is gone (it stopped
 * beating, or its process died on this host) were interrupted, and are failed as such.
 * A sweep runs at start, then after every heartbeat of this instance, on one timer.
 */
export class OrphanSweep implements Duty {
  readonly name = "heartbeat and orphan sweep";
  private timer: NodeJS.Timeout | null = null;
  private beating = false;

  constructor(private readonly deps: OrphanSweepDeps) {}

  /** The first sweep, then the heartbeat timer; resolves with the tool runs the first sweep failed. */
  async start(): Promise<string[]> {
    const { runs } = this.deps.sweeps === false ? { runs: [] } : await this.sweep();
    this.timer = setInterval(() => void this.tick(), this.deps.everyMs);
    this.timer.unref();
    return runs;
  }

  /** Stops the timer (a sweep under way finishes). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Fails what instances not in `liveIds` (default: those found live now) left RUNNING, and publishes each closing
   * record.
   */
  async sweep(liveIds?: string[]): Promise<SweepResult> {
    const live = liveIds ?? (await this.deps.instances.liveIds());
    const result = { runs: await failToolRuns(this.deps, live), agentRuns: await failAgentRuns(this.deps, live) };
    await this.deps.agents.continueAnswered?.();
    return result;
  }

  private async tick(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const live = await this.deps.instances.beat();
      await this.deps.fence?.(live === false);
      if (this.deps.sweeps !== false) await this.sweep();
    } catch (e) {
      this.deps.log.warn("heartbeat failed", { error: (e as Error).message });
    } finally {
      this.beating = false;
    }
  }
}

/**
 * Re-drives (or marks OUTCOME_UNKNOWN) the tool runs of instances not in `liveIds` and publishes their events; returns
 * their ids.
 */
async function failToolRuns(
  deps: Pick<OrphanSweepDeps, "instances" | "runs" | "bus" | "log">,
  liveIds: string[],
): Promise<string[]> {
  const whyGone =
    deps.instances.whyGone?.bind(deps.instances) ?? ((id: string) => `instance ${id} is not registered as live`);
  const { events, queued } = await deps.runs.settleOrphans(liveIds, whyGone);
  for (const e of events) deps.bus.publish("runEvent", e);
  if (queued.length) deps.log.warn("runs of an instance that is gone were queued to run again", { runIds: queued });
  const unknown = events.filter((e) => e.type === "RUN_INTERRUPTED").map((e) => e.runId);
  if (unknown.length)
    deps.log.warn("runs of an instance that is gone were not re-run: their outcome is unknown", { runIds: unknown });
  return events.map((e) => e.runId);
}
