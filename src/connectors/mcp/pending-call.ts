import type { CallToolResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { isToolError, ToolError } from "../../errors.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { ToolUpdate } from "../../tools/tool-update.ts";

/** What a pending upstream call does next: finish (a result or a failure), or ask a question. */
export type CallStep =
  | { type: "result"; result: CallToolResult }
  | { type: "error"; kind: ToolError["kind"]; message: string; retryable?: boolean }
  | { type: "elicit"; elicitationId: string; message: string; requestedSchema: JsonSchema };

/** A step as its {@link ToolError}, for the `error` step. */
export function stepError(step: Extract<CallStep, { type: "error" }>): ToolError {
  return new ToolError(step.message, {
    kind: step.kind,
    ...(step.retryable === undefined ? {} : { retryable: step.retryable }),
  });
}

/**
 * One `tools/call` in flight on this instance's connection (docs/connectors.md §8). Its
 * upstream request outlives a park: while a run waits on an elicitation's answer, the
 * request stays pending here, no timer of ours runs, and the run's own signal is no
 * longer linked (an attempt that parked is over). `next(call)` opens an **active
 * segment**: the attempt's timeout armed, its signal linked, until the next step.
 */
export class PendingCall {
  readonly controller = new AbortController();
  private readonly steps: CallStep[] = [];
  private wake: (() => void) | undefined;
  private answerOpen: ((r: ElicitResult) => void) | undefined;
  private openId: string | undefined;
  private elicitations = 0;
  private active = false;
  private gone = false;
  private parkTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly id: string,
    readonly runId: string,
    /** How long a parked question may wait before the upstream request is cancelled. */
    private readonly parkMs: number,
    /** Called once, when the call is over for this instance (it forgets it). */
    private readonly onEnd: (p: PendingCall) => void,
  ) {}

  /**
   * Runs the request: `send(signal)` is the SDK call; its outcome becomes the last step (`fail` classifies a rejection
   * that is not an abort's ToolError).
   */
  start(
    send: (signal: AbortSignal) => Promise<CallToolResult>,
    fail: (e: unknown, aborted: boolean) => ToolError,
  ): void {
    send(this.controller.signal).then(
      (result) => this.push({ type: "result", result }),
      (e: unknown) => {
        const aborted = this.controller.signal.aborted;
        const reason = aborted ? this.controller.signal.reason : e;
        const err = aborted && isToolError(reason) ? reason : fail(reason, aborted);
        this.push({
          type: "error",
          kind: err.kind,
          message: err.message,
          ...(err.retryable === undefined ? {} : { retryable: err.retryable }),
        });
      },
    );
  }

  /**
   * Where the upstream's progress goes: the attempt of the active segment (nowhere while parked, or when the segment is
   * another instance's).
   */
  progressTo: ((update: ToolUpdate) => void) | undefined;

  /** A step is waiting to be read (the request ended while parked). */
  get hasSteps(): boolean {
    return this.steps.length > 0;
  }

  /** Whether a run's attempt is waiting on this call now (an elicitation arriving is its). */
  get isActive(): boolean {
    return this.active;
  }

  /** The open question's id while the call is parked on it. */
  get parkedOn(): string | undefined {
    return this.active || this.gone ? undefined : this.openId;
  }

  /**
   * Waits for the next step under the attempt's timeout and signal. An abort of the
   * signal cancels the upstream request (the SDK sends `notifications/cancelled`) and
   * rejects with the signal's reason; past `timeoutMs` the request is cancelled and the
   * step is a TIMEOUT failure. A question step leaves the call parked: no timer of the
   * attempt runs any more, only the park's own bound.
   */
  async next(call: { timeoutMs: number; signal?: AbortSignal }): Promise<CallStep> {
    this.active = true;
    clearTimeout(this.parkTimer);
    const timer = setTimeout(
      () =>
        this.abort(
          new ToolError(`the MCP server did not answer within ${Math.round(call.timeoutMs / 1000)} s`, {
            kind: "TIMEOUT",
          }),
        ),
      call.timeoutMs,
    );
    const signal = call.signal;
    const onAbort = () => this.abort(signal!.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (!this.steps.length) await new Promise<void>((r) => (this.wake = r));
      const step = this.steps.shift()!;
      if (signal?.aborted) {
        this.end();
        throw signal.reason;
      }
      if (step.type === "elicit") {
        this.progressTo = undefined;
        this.parkTimer = setTimeout(() => this.cancelParked("the question was not answered in time"), this.parkMs);
      } else this.end();
      return step;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.active = false;
    }
  }

  /** The upstream asked a question during this call: a step, answered by {@link answer}. */
  elicit(params: ElicitRequest["params"]): Promise<ElicitResult> {
    const elicitationId = `e${++this.elicitations}`;
    this.openId = elicitationId;
    const requestedSchema = ("requestedSchema" in params ? params.requestedSchema : { type: "object" }) as JsonSchema;
    return new Promise<ElicitResult>((resolve) => {
      this.answerOpen = resolve;
      this.push({ type: "elicit", elicitationId, message: params.message, requestedSchema });
    });
  }

  /** Answers the open question `elicitationId`; false when it is not the one open. */
  answer(elicitationId: string, result: ElicitResult): boolean {
    if (this.openId !== elicitationId || !this.answerOpen) return false;
    const resolve = this.answerOpen;
    this.answerOpen = this.openId = undefined;
    resolve(result);
    return true;
  }

  /** Ends a parked call whose run will not resume: the question is cancelled, then the request. */
  cancelParked(why: string): void {
    if (this.openId !== undefined) this.answer(this.openId, { action: "cancel" });
    this.abort(new ToolError(why, { kind: "CANCELLED" }));
    this.end();
  }

  private end(): void {
    clearTimeout(this.parkTimer);
    if (this.gone) return;
    this.gone = true;
    this.onEnd(this);
  }

  private abort(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private push(step: CallStep): void {
    // The request ended with a question still open: nobody can answer it any more.
    if (step.type !== "elicit" && this.openId !== undefined) this.answer(this.openId, { action: "cancel" });
    this.steps.push(step);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
