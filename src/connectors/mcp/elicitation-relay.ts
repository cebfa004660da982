import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../errors.ts";
import type { ConnectorEnv } from "../connector-kind.ts";
import type { CallStep } from "./pending-call.ts";

/**
 * How an answer reaches a parked MCP call held by another instance (docs/connectors.md §8):
 * the answer, the holder's acknowledgement, a cancel and the outcome are each written to
 * the shared store under the call's keys; a bus message (`mcpElicitation`) only wakes the
 * other side early. Both sides also poll the store, so a lost bus message delays an answer
 * by one poll and never loses it.
 */
export const RELAY = Object.freeze({
  /** Store poll interval of a waiting side. */
  pollMs: 250,
  /** How long a resumer waits for the holder to take the answer: past it the holder is gone (UNAVAILABLE). */
  ackMs: 5000,
  /** How long relay entries live in the store. */
  ttlSeconds: 900,
  /** Beyond the attempt's timeout, how long a resumer waits for the holder's outcome (the holder times out first). */
  graceMs: 5000,
});

export type RelayPart = "answer" | "cancel" | "ack" | "outcome";

/** What a resumer hands the holder. */
export interface RelayedAnswer {
  result: ElicitResult;
  /** The resuming attempt's timeout. */
  timeoutMs: number;
  /** The resuming instance (acks and outcomes are addressed to it). */
  from: string;
}

/** The park state of a parked MCP call: who holds it, which call, which question. */
export interface ParkedCallState {
  instanceId: string;
  pendingId: string;
  elicitationId: string;
}

export function relayKey(s: Pick<ParkedCallState, "pendingId" | "elicitationId">, part: RelayPart): string {
  return `tai42:mcp-elicitation:${s.pendingId}:${s.elicitationId}:${part}`;
}

type Env = Pick<ConnectorEnv, "store" | "bus" | "instanceId">;

/**
 * Waits until `key` holds a value in the store (polled, and re-read at once on a bus
 * wake-up for this call); undefined past `ms`. An abort of `signal` rejects with its reason.
 */
export async function waitForKey(
  env: Env,
  s: ParkedCallState,
  key: string,
  ms: number,
  signal?: AbortSignal,
): Promise<unknown> {
  const deadline = Date.now() + ms;
  let wake: (() => void) | undefined;
  const stop = env.bus.listen("mcpElicitation", (m) => {
    if (m.pendingId === s.pendingId && m.elicitationId === s.elicitationId) wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const value = await env.store.get(key);
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(RELAY.pollMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    stop();
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The resumer's side: stores the answer for the holder, waits for its acknowledgement
 * (none within {@link RELAY.ackMs}: the holder is gone, UNAVAILABLE), then for the
 * outcome it writes. A cancel of the resuming attempt is relayed to the holder.
 */
export async function relayAnswer(
  env: Env,
  s: ParkedCallState,
  result: ElicitResult,
  call: { timeoutMs: number; signal: AbortSignal },
): Promise<CallStep> {
  const relayed: RelayedAnswer = { result, timeoutMs: call.timeoutMs, from: env.instanceId };
  await env.store.set(relayKey(s, "answer"), relayed, RELAY.ttlSeconds);
  env.bus.publish("mcpElicitation", {
    to: s.instanceId,
    pendingId: s.pendingId,
    elicitationId: s.elicitationId,
    what: "answer",
  });
  const ack = await waitForKey(env, s, relayKey(s, "ack"), RELAY.ackMs, call.signal);
  if (ack === undefined)
    throw new ToolError(
      `the instance holding this MCP call (${s.instanceId}) did not take the answer within ${RELAY.ackMs / 1000} s; it is gone`,
      { kind: "UNAVAILABLE" },
    );
  try {
    const outcome = await waitForKey(env, s, relayKey(s, "outcome"), call.timeoutMs + RELAY.graceMs, call.signal);
    if (outcome === undefined)
      throw new ToolError(
        `the MCP call held by instance ${s.instanceId} gave no outcome within ${Math.round(call.timeoutMs / 1000)} s`,
        { kind: "TIMEOUT" },
      );
    return outcome as CallStep;
  } catch (e) {
    if (call.signal.aborted) {
      await env.store
        .set(relayKey(s, "cancel"), { reason: e instanceof Error ? e.message : "cancelled" }, RELAY.ttlSeconds)
        .catch(() => {});
      env.bus.publish("mcpElicitation", {
        to: s.instanceId,
        pendingId: s.pendingId,
        elicitationId: s.elicitationId,
        what: "cancel",
      });
    }
    throw e;
  }
}
