import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { IDEMPOTENCY_KEY_MAX, isIdempotencyKeyInBounds, isTimeoutInBounds } from "../auth/dispatch-bounds.ts";
import type { Caller } from "../auth/roles.ts";
import { answersInteractions } from "../auth/tiers.ts";
import { callerAnswer } from "../dispatch/caller-answer.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import { ApiError, ToolError } from "../errors.ts";
import type { InteractionRecord } from "../interactions/park.ts";
import type { Runtime } from "../runtime.ts";
import { scrubInteraction, scrubRun } from "../secrets/value-fields.ts";
import { callResult } from "./call-result.ts";
import { interactionForm, isElicitable } from "./elicitation.ts";
import { followProgress } from "./progress.ts";

/** The handler extra of the SDK's server. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Asks the client's user to fill in a form (`elicitation/create`).
 * Contract: rejects when `signal` aborts, or when the client does not answer.
 */
export type Elicit = (extra: CallExtra, params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;

/** What a `tools/call` needs from the door it came through. */
export interface McpCallContext {
  caller: Caller;
  /**
   * Asks the client's user; null when it cannot be asked (no elicitation capability, or no session to route the
   * answer).
   */
  elicit: Elicit | null;
}

/** `_meta` keys a `tools/call` may carry (docs/mcp.md). */
export const IDEMPOTENCY_KEY_META = "tai42/idempotencyKey";
export const TIMEOUT_META = "tai42/timeoutSeconds";

/** How long one elicitation waits for the user at most (less when the interaction expires sooner). */
const ELICIT_WAIT_MS = 10 * 60_000;
/** Parks answered in one call, at most (a run may park again after each answer). */
const MAX_ROUNDS = 20;
/** Answers refused by an interaction's answerFormat that are asked again, at most. */
const MAX_REFUSALS = 3;

/**
 * `tools/call`: the run goes through the chokepoint (door `mcp`, the caller of the
 * request) exactly as a GraphQL dispatch does, and comes back as a result whatever its
 * outcome (`call-result.ts`). With a progress token, the run's events are reported as
 * progress; `notifications/cancelled` (the aborted `extra.signal`) cancels the run; a
 * run that parks is answered through elicitation when the client can be asked.
 */
export async function callTool(
  rt: Runtime,
  ctx: McpCallContext,
  params: CallToolRequest["params"],
  extra: CallExtra,
): Promise<CallToolResult> {
  const { idempotencyKey, timeoutSeconds } = callOptions(params._meta);
  const cancel = new AbortController();
  const onAbort = () =>
    cancel.abort(
      new ToolError(`the MCP client cancelled the call${reasonOf(extra.signal.reason)}`, { kind: "CANCELLED" }),
    );
  if (extra.signal.aborted) onAbort();
  else extra.signal.addEventListener("abort", onAbort, { once: true });
  const token = params._meta?.progressToken;
  const progress =
    token === undefined ? null : followProgress(rt.bus, rt.secrets, token, (n) => extra.sendNotification(n));
  try {
    // A secret-tier run's result reaches its caller here, once (`callerAnswer`).
    let run = callerAnswer(
      await rt.dispatcher.runDetailed({
        tool: params.name,
        input: params.arguments ?? {},
        caller: ctx.caller,
        door: "mcp",
        idempotencyKey,
        timeoutSeconds,
        signal: cancel.signal,
        onRun: (id) => progress?.follow(id),
        toolCallId: String(extra.requestId),
      }),
    );
    if (run.status === "PARKED" && ctx.elicit && answersInteractions(ctx.caller.role))
      run = await answerParked(rt, ctx.elicit, ctx.caller, run, extra, cancel.signal);
    const interactions: InteractionRecord[] = run.status === "PARKED" ? await rt.interactions.forRun(run.id) : [];
    // Values only (docs/security-model.md §3): the run id, status, kinds and names stay whole.
    const clean = interactions.map((i) => scrubInteraction(rt.secrets, i));
    return callResult(scrubRun(rt.secrets, run), rt.surface.base(run.tool), clean);
  } finally {
    progress?.stop();
    extra.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Asks the user for each open interaction of a parked run, one at a time, through the
 * same answer path as GraphQL's `answerInteraction`; the answer that completes the park
 * resumes the run here. `accept` answers (an answer its `answerFormat` refuses is asked
 * again, saying why); `decline` cancels the run; `cancel`, no answer in time, or a
 * client that cannot answer leaves it parked, to be answered from GraphQL.
 */
async function answerParked(
  rt: Runtime,
  elicit: Elicit,
  caller: Caller,
  parked: RunRecord,
  extra: CallExtra,
  signal: AbortSignal,
): Promise<RunRecord> {
  const runId = parked.id;
  // A cancellation while parked (or while resuming) ends the run wherever it is.
  const cancelRun = () =>
    void rt.dispatcher
      .cancelFor(caller, runId)
      .catch((e: Error) => rt.log.warn("cancelling a parked MCP run failed", { runId, error: e.message }));
  signal.addEventListener("abort", cancelRun, { once: true });
  let run = parked;
  let refusal: string | undefined;
  let refused = 0;
  try {
    for (let round = 0; round < MAX_ROUNDS && run.status === "PARKED" && !signal.aborted; round++) {
      const next = (await rt.interactions.forRun(runId)).find(isElicitable);
      if (!next) break;
      const form = interactionForm(next, refusal);
      let reply: ElicitResult;
      try {
        reply = await elicit(
          extra,
          rt.secrets.scrub(form.params),
          AbortSignal.any([signal, AbortSignal.timeout(waitMs(next))]),
        );
      } catch {
        break;
      }
      if (reply.action === "cancel") break;
      if (reply.action === "decline") {
        run =
          (await rt.dispatcher.endParked(runId, "CANCELLED", "the MCP client declined the interaction")) ??
          (await rt.dispatcher.awaitFinal(runId));
        break;
      }
      try {
        run = await rt.interactions.answer(next.id, form.answerOf(reply.content), caller);
        refusal = undefined;
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        if (e.code === "BAD_USER_INPUT" && ++refused < MAX_REFUSALS) refusal = `the answer was refused: ${e.message}`;
        else {
          // Answered meanwhile from elsewhere, expired, or refused too often: whatever the
          // run became (still parked after the last refusal: its park is answered elsewhere).
          run = await rt.dispatcher.awaitFinal(runId);
          if (refused >= MAX_REFUSALS) break;
        }
      }
    }
  } finally {
    signal.removeEventListener("abort", cancelRun);
  }
  return run;
}

/** `idempotencyKey` and `timeoutSeconds` from the call's `_meta`; a malformed one is refused as invalid params. */
export function callOptions(meta: Record<string, unknown> | undefined): {
  idempotencyKey?: string;
  timeoutSeconds?: number;
} {
  const key = meta?.[IDEMPOTENCY_KEY_META];
  const timeout = meta?.[TIMEOUT_META];
  // The chokepoint's bounds (auth/dispatch-bounds.ts), refused here as MCP refuses bad params.
  if (key !== undefined && (typeof key !== "string" || !isIdempotencyKeyInBounds(key)))
    throw new McpError(
      ErrorCode.InvalidParams,
      `_meta["${IDEMPOTENCY_KEY_META}"] must be a string of 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
    );
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !isTimeoutInBounds(timeout) || !Number.isFinite(timeout))
  )
    throw new McpError(ErrorCode.InvalidParams, `_meta["${TIMEOUT_META}"] must be a number of seconds > 0`);
  return { idempotencyKey: key, timeoutSeconds: timeout };
}

function reasonOf(reason: unknown): string {
  return typeof reason === "string" && reason ? `: ${reason.slice(0, 200)}` : "";
}

function waitMs(i: InteractionRecord): number {
  const left = i.expiresAt ? Date.parse(i.expiresAt) - Date.now() : ELICIT_WAIT_MS;
  return Math.max(1, Math.min(ELICIT_WAIT_MS, left));
}
