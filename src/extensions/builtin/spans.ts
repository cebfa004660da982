import { randomUUID } from "node:crypto";
import type { Db } from "../../db/client.ts";
import type { Bus } from "../../events/bus.ts";
import type { Scrubber } from "../../secrets/secrets.ts";
import type { MonitorSpan, MonitorTracer } from "../../ops/run-spans.ts";

/** One traced call of a monitored branch. Times are ISO strings (they cross Redis). */
export interface SpanRecord {
  id: string;
  tool: string;
  runId: string;
  status: "RUNNING" | "SUCCEEDED" | "FAILED" | "PARKED" | "CANCELLED";
  attributes: Record<string, unknown>;
  startedAt: string;
  finishedAt: string | null;
}

// The token of a callback URL (`/callbacks/<token>`, see server/build-app.ts) is the
// credential that answers an interaction: a layer under ask_external sees it in its input.
const CALLBACK_TOKEN = /\/callbacks\/[A-Za-z0-9_-]{20,100}/g;

/**
 * Span attributes as stored and published: known secret values (resolved `!ENV`
 * settings, `ctx.redact`) scrubbed and callback tokens hidden, as in run records.
 */
function sealed(attributes: Record<string, unknown>, secrets: Scrubber): Record<string, unknown> {
  const text = JSON.stringify(attributes);
  const hidden = text.replace(CALLBACK_TOKEN, "/callbacks/[redacted]");
  return secrets.scrub(hidden === text ? attributes : JSON.parse(hidden));
}

/** Spans are persisted and published on the bus (`span`) when they open and when they close. */
export class SpanStore {
  /**
   * When tracing is on: each span is also an OpenTelemetry span, a child of the attempt it runs in
   * (`ops/run-spans.ts`).
   */
  tracer: MonitorTracer | null = null;
  private readonly traced = new Map<string, MonitorSpan>();

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly secrets: Scrubber,
  ) {}

  async open(tool: string, runId: string, attributes: Record<string, unknown>): Promise<SpanRecord> {
    const otel = this.tracer?.start(tool, runId, attributes.attempt);
    attributes = sealed(attributes, this.secrets);
    const span: SpanRecord = {
      id: randomUUID(),
      tool,
      runId,
      status: "RUNNING",
      attributes,
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    await this.db.span.create({
      data: {
        id: span.id,
        tool,
        runId,
        status: span.status,
        attributes: attributes as never,
        startedAt: new Date(span.startedAt),
      },
    });
    if (otel) this.traced.set(span.id, otel);
    this.bus.publish("span", span);
    return span;
  }

  async close(
    span: SpanRecord,
    status: SpanRecord["status"],
    attributes: Record<string, unknown>,
  ): Promise<SpanRecord> {
    const finishedAt = new Date();
    const closed: SpanRecord = {
      ...span,
      status,
      finishedAt: finishedAt.toISOString(),
      attributes: {
        ...span.attributes,
        ...sealed(attributes, this.secrets),
        durationMs: finishedAt.getTime() - new Date(span.startedAt).getTime(),
      },
    };
    this.traced.get(span.id)?.end(status, typeof attributes.errorKind === "string" ? attributes.errorKind : undefined);
    this.traced.delete(span.id);
    await this.db.span.update({
      where: { id: span.id },
      data: { status, finishedAt, attributes: closed.attributes as never },
    });
    this.bus.publish("span", closed);
    return closed;
  }

  /** Newest first. */
  async list(tool?: string, take = 100, skip = 0): Promise<SpanRecord[]> {
    const rows = await this.db.span.findMany({
      where: tool ? { tool } : {},
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take,
      skip,
    });
    return rows.map((r) => ({
      id: r.id,
      tool: r.tool,
      runId: r.runId,
      status: r.status as SpanRecord["status"],
      attributes: r.attributes as Record<string, unknown>,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
    }));
  }
}
