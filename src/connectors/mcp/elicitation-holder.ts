import { isToolError, ToolError } from "../../errors.ts";
import type { ConnectorEnv } from "../connector-kind.ts";
import { RELAY, relayKey, type ParkedCallState, type RelayedAnswer } from "./elicitation-relay.ts";
import type { CallStep, PendingCall } from "./pending-call.ts";

/**
 * The holder's side of the relay (docs/connectors.md §8): the instance whose connection
 * holds parked upstream calls takes answers another instance relayed (on a bus wake-up,
 * and by polling the store for each parked call), runs the call's next segment and writes
 * its outcome. It also ends a parked call whose run was cancelled or whose interaction
 * expired (the `interaction` topic): the upstream gets `action: "cancel"`.
 */
export class ElicitationHolder {
  private readonly busy = new Set<string>();
  private readonly stops: Array<() => void> = [];
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly env: Pick<ConnectorEnv, "store" | "bus" | "instanceId" | "log">,
    private readonly pending: ReadonlyMap<string, PendingCall>,
  ) {
    this.stops.push(
      env.bus.listen("mcpElicitation", (m) => {
        if (m.to === env.instanceId && m.what === "answer") void this.check(m.pendingId);
      }),
      env.bus.listen("interaction", (i) => {
        if (i.status !== "CANCELLED" && i.status !== "EXPIRED") return;
        for (const p of [...pending.values()])
          if (p.runId === i.runId && p.parkedOn !== undefined)
            p.cancelParked(i.status === "EXPIRED" ? "the question expired" : "the parked run was cancelled");
      }),
    );
    this.timer = setInterval(() => {
      for (const p of pending.values()) if (p.parkedOn !== undefined) void this.check(p.id);
    }, RELAY.pollMs * 2);
    this.timer.unref();
  }

  private async check(pendingId: string): Promise<void> {
    const p = this.pending.get(pendingId);
    const elicitationId = p?.parkedOn;
    if (!p || elicitationId === undefined) return;
    const s: ParkedCallState = { instanceId: this.env.instanceId, pendingId, elicitationId };
    const busyKey = `${pendingId}:${elicitationId}`;
    if (this.busy.has(busyKey)) return;
    this.busy.add(busyKey);
    try {
      const relayed = (await this.env.store.get(relayKey(s, "answer"))) as RelayedAnswer | undefined;
      if (!relayed || !(p.answer(elicitationId, relayed.result) || p.hasSteps)) return;
      await this.env.store.set(relayKey(s, "ack"), true, RELAY.ttlSeconds);
      this.env.bus.publish("mcpElicitation", { to: relayed.from, pendingId, elicitationId, what: "ack" });
      const step = await this.segment(p, s, relayed.timeoutMs);
      await this.env.store.set(relayKey(s, "outcome"), step, RELAY.ttlSeconds);
      this.env.bus.publish("mcpElicitation", { to: relayed.from, pendingId, elicitationId, what: "outcome" });
    } catch (e) {
      this.env.log.warn("a relayed answer to a parked MCP call failed", {
        pendingId,
        error: e instanceof Error ? e.message : String(e),
      });
    } finally {
      this.busy.delete(busyKey);
    }
  }

  /** Runs the call's next segment for a resumer elsewhere; its cancel arrives through the store. */
  private async segment(p: PendingCall, s: ParkedCallState, timeoutMs: number): Promise<CallStep> {
    const cancel = new AbortController();
    const cancelled = async () => {
      if (
        (await this.env.store.get(relayKey(s, "cancel")).catch(() => undefined)) !== undefined &&
        !cancel.signal.aborted
      )
        cancel.abort(new ToolError("the resumed run was cancelled", { kind: "CANCELLED" }));
    };
    const watch = setInterval(() => void cancelled(), RELAY.pollMs);
    const stop = this.env.bus.listen("mcpElicitation", (m) => {
      if (m.pendingId === s.pendingId && m.elicitationId === s.elicitationId && m.what === "cancel") void cancelled();
    });
    try {
      return await p.next({ timeoutMs, signal: cancel.signal });
    } catch (e) {
      const err = isToolError(e) ? e : new ToolError("the MCP call failed", { kind: "UNAVAILABLE" });
      return { type: "error", kind: err.kind, message: err.message };
    } finally {
      clearInterval(watch);
      stop();
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const stop of this.stops) stop();
  }
}
