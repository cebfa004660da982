import type { CallToolResult, ContentBlock as McpContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { Issue } from "../errors.ts";
import type { InteractionRecord } from "../interactions/park.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { ContentBlock } from "../tools/result.ts";
import { advertisedOutputSchema } from "./tool-listing.ts";

/** What a call that did not succeed reports, as `structuredContent` (or `_meta["tai42/outcome"]`). */
export interface CallOutcome {
  runId: string;
  status: RunRecord["status"];
  /** FAILED and CANCELLED runs. */
  error?: { kind: string | null; message: string | null; issues: Issue[]; retryAfterSeconds?: number };
  /** PARKED runs: what they wait on; answer through GraphQL's `answerInteraction`. */
  interactions?: { id: string; question: string; to: string; answerFormat: unknown; expiresAt: string | null }[];
}

/**
 * A run as a `tools/call` result (docs/mcp.md). A run that did not succeed is still a
 * result, never a protocol error: FAILED and CANCELLED runs have `isError: true`, and the
 * outcome (error kind, message, issues; or a PARKED run's interactions) is the
 * `structuredContent`. A tool that advertises an output schema gets it in
 * `_meta["tai42/outcome"]` instead, since the official client validates every
 * `structuredContent` of such a tool against its schema. Every result names its run in
 * `_meta["tai42/runId"]`.
 */
export function callResult(
  run: RunRecord,
  entry: SurfaceEntry | undefined,
  interactions: InteractionRecord[] = [],
): CallToolResult {
  const _meta: Record<string, unknown> = { "tai42/runId": run.id, "tai42/status": run.status };
  const content = run.content.map(mcpBlock);
  if (run.status === "SUCCEEDED") {
    const data = run.data;
    const structured =
      data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
    return { content, ...(structured ? { structuredContent: structured } : {}), _meta };
  }
  const outcome: CallOutcome = { runId: run.id, status: run.status };
  let summary: string;
  if (run.status === "PARKED") {
    const open = interactions.filter((i) => i.status === "PENDING");
    outcome.interactions = open.map((i) => ({
      id: i.id,
      question: i.question,
      to: i.to,
      answerFormat: i.answerFormat,
      expiresAt: i.expiresAt,
    }));
    const waits = open.map((i) => `"${i.question}" (interaction ${i.id})`).join("; ");
    summary = `run ${run.id} is parked, waiting on ${waits || "its interactions"}; answer with answerInteraction over GraphQL`;
  } else {
    outcome.error = { kind: run.errorKind, message: run.errorMessage, issues: issuesOf(run.details) };
    // A limit's refusal (docs/flow-control.md §3) says when to send the call again.
    const retryAfter = (run.details as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
    if (typeof retryAfter === "number") _meta["tai42/retryAfterSeconds"] = outcome.error.retryAfterSeconds = retryAfter;
    summary = `${run.errorKind ?? run.status}: ${run.errorMessage ?? "the run did not succeed"}`;
  }
  const result: CallToolResult = { content: [{ type: "text", text: summary }, ...content], _meta };
  if (run.status !== "PARKED") result.isError = true;
  if (advertisedOutputSchema(entry)) _meta["tai42/outcome"] = outcome;
  else result.structuredContent = outcome as unknown as Record<string, unknown>;
  return result;
}

function issuesOf(details: unknown): Issue[] {
  const issues = (details as { issues?: unknown } | null)?.issues;
  return Array.isArray(issues)
    ? issues.filter((i): i is Issue => typeof i?.path === "string" && typeof i?.message === "string")
    : [];
}

/** A content block of a run as MCP carries it: text, image and audio as such, anything else as JSON text. */
function mcpBlock(b: ContentBlock): McpContentBlock {
  if (b.type === "text" && typeof b.text === "string") return { type: "text", text: b.text };
  if ((b.type === "image" || b.type === "audio") && typeof b.data === "string" && typeof b.mimeType === "string")
    return { type: b.type, data: b.data, mimeType: b.mimeType };
  return { type: "text", text: b.text ?? JSON.stringify(b.data ?? null) };
}
