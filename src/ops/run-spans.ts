import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import type { RunTrace, RunTracer, TracedDispatch } from "../dispatch/observe.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import { ToolError } from "../errors.ts";
import type { Scrubber } from "../secrets/secrets.ts";

/**
 * Run and attempt spans over an OpenTelemetry tracer (the chokepoint's {@link RunTracer}).
 * What a span carries is chosen, never copied: names, ids, the door, the caller's role,
 * the tier, statuses and error kinds. Inputs and outputs are never attributes, error
 * messages of `secret`-tier runs are left out, and every error message passes the
 * runtime's secrets first, so a resolved `!ENV` value never reaches a collector; names,
 * ids and kinds are structure and stay whole (docs/security-model.md §3 "Which fields are values").
 */
export class OtelRunTracer implements RunTracer {
  constructor(
    private readonly tracer: Tracer,
    private readonly secrets: Scrubber,
  ) {}

  startRun(d: TracedDispatch): RunTrace {
    const attributes: Attributes = { "tai42.tool": d.tool, "tai42.door": d.door, "tai42.caller.role": d.caller.role };
    if (d.parentRunId) attributes["tai42.run.parent_id"] = d.parentRunId;
    const span = this.tracer.startSpan(`tai42.run ${attributes["tai42.tool"]}`, { attributes }, context.active());
    return new OtelRunTrace(this.tracer, span, this.secrets, String(attributes["tai42.tool"]));
  }
}

class OtelRunTrace implements RunTrace {
  private open: Span | null = null;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly secrets: Scrubber,
    private readonly tool: string,
  ) {}

  async attempt<T>(n: number, body: () => Promise<T>): Promise<T> {
    // A body abandoned at its timeout never settles: its span ends when the next attempt starts.
    this.endAttempt({ code: SpanStatusCode.ERROR, message: "abandoned" });
    const parent = trace.setSpan(context.active(), this.span);
    const span = this.tracer.startSpan(`tai42.attempt ${this.tool}`, { attributes: { "tai42.attempt": n } }, parent);
    this.open = span;
    try {
      const value = await context.with(trace.setSpan(parent, span), body);
      if (this.open === span) this.endAttempt({ code: SpanStatusCode.OK });
      return value;
    } catch (e) {
      if (this.open === span) {
        span.setAttribute("tai42.error.kind", ToolError.fromUnknown(e).kind);
        this.endAttempt({ code: SpanStatusCode.ERROR });
      }
      throw e;
    }
  }

  end(run: RunRecord): void {
    this.endAttempt({ code: SpanStatusCode.ERROR, message: "abandoned" });
    this.span.setAttributes({
      "tai42.run.id": run.id,
      "tai42.run.status": run.status,
      "tai42.tier": run.tier ?? "unknown",
      "tai42.attempts": run.attempts.length,
    });
    if (run.errorKind) this.span.setAttribute("tai42.error.kind", run.errorKind);
    const failed = run.status === "FAILED" || run.status === "CANCELLED";
    const message =
      failed && run.tier !== "secret" && run.errorMessage ? this.secrets.scrubText(run.errorMessage) : undefined;
    this.span.setStatus(failed ? { code: SpanStatusCode.ERROR, message } : { code: SpanStatusCode.OK });
    this.span.end();
  }

  fail(error: unknown): void {
    this.endAttempt({ code: SpanStatusCode.ERROR, message: "abandoned" });
    this.span.setAttribute("tai42.error.kind", ToolError.fromUnknown(error).kind);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: "the dispatch failed to store its run" });
    this.span.end();
  }

  private endAttempt(status: { code: SpanStatusCode; message?: string }): void {
    if (!this.open) return;
    this.open.setStatus(status);
    this.open.end();
    this.open = null;
  }
}

/** A monitor span's OpenTelemetry twin (see {@link MonitorTracer}). */
export interface MonitorSpan {
  end(status: string, errorKind?: string): void;
}

/**
 * Spans of the `monitor` extension as OpenTelemetry spans too, children of the attempt
 * they run in. Attributes are the tool, run and attempt, never the input.
 */
export class MonitorTracer {
  constructor(private readonly tracer: Tracer) {}

  start(tool: string, runId: string, attempt: unknown): MonitorSpan {
    const span = this.tracer.startSpan(
      `tai42.monitor ${tool}`,
      {
        attributes: {
          "tai42.tool": tool,
          "tai42.run.id": runId,
          "tai42.attempt": typeof attempt === "number" ? attempt : 0,
        },
      },
      context.active(),
    );
    return {
      end: (status, errorKind) => {
        span.setAttribute("tai42.span.status", status);
        if (errorKind) span.setAttribute("tai42.error.kind", errorKind);
        span.setStatus({
          code: status === "FAILED" || status === "CANCELLED" ? SpanStatusCode.ERROR : SpanStatusCode.OK,
        });
        span.end();
      },
    };
  }
}
