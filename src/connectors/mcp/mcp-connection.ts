import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type ElicitResult,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { isToolError, ToolError } from "../../errors.ts";
import { park } from "../../interactions/park.ts";
import type { ToolUpdate } from "../../tools/tool-update.ts";
import type {
  ConnectorConnection,
  ConnectorEnv,
  UpstreamCall,
  UpstreamListing,
  UpstreamTool,
} from "../connector-kind.ts";
import { ElicitationHolder } from "./elicitation-holder.ts";
import { relayAnswer, type ParkedCallState } from "./elicitation-relay.ts";
import { classify, isMalformed } from "./mcp-errors.ts";
import { listTools } from "./mcp-listing.ts";
import { mapResult } from "./mcp-result.ts";
import type { McpSettings } from "./mcp-settings.ts";
import { transportFor } from "./mcp-transport.ts";
import { PendingCall, stepError, type CallStep } from "./pending-call.ts";

/** The SDK's own per-request timer, set past any park: tai42's timers (the attempt's, the park's) bound a call. */
const NO_SDK_TIMEOUT = 2_147_483_647;

/** The `_meta` key an upstream may deduplicate on (docs/connectors.md §5). */
export const IDEMPOTENCY_META = "tai42/idempotencyKey";

/**
 * One connection to one MCP server through the SDK's `Client` (docs/connectors.md §8):
 * listing, calls (progress, cancel, timeout), elicitation parked and resumed on any
 * instance, `list_changed` and a lost transport reported to the connection manager.
 */
export class McpConnection implements ConnectorConnection {
  /** Calls in flight or parked on this connection, by id. */
  readonly pending = new Map<string, PendingCall>();
  private closing = false;
  /** `initialize` was answered: only an opened connection is reported lost (a failed connect throws instead). */
  private opened = false;
  private holder: ElicitationHolder | undefined;

  private constructor(
    private readonly env: ConnectorEnv<McpSettings>,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly elicits: boolean,
  ) {}

  /** Opens the connection: resolves once `initialize` is answered; a ToolError (UNAVAILABLE, TIMEOUT, …) otherwise. */
  static async open(env: ConnectorEnv<McpSettings>): Promise<McpConnection> {
    const elicits = env.canPark && env.settings.elicitation !== false;
    const client = new Client(
      { name: "tai42", version: "1" },
      { capabilities: elicits ? { elicitation: { form: {} } } : {} },
    );
    const transport = transportFor(env);
    const conn = new McpConnection(env, client, transport, elicits);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => env.toolsChanged());
    if (elicits) client.setRequestHandler(ElicitRequestSchema, (req) => conn.onElicit(req.params));
    client.onerror = (e) => env.log.warn("MCP connection error", { connector: env.name, error: e.message });
    client.onclose = () => conn.dropped(new Error(`the MCP server "${env.name}" closed the connection`));
    try {
      await client.connect(transport, { timeout: conn.requestMs });
    } catch (e) {
      conn.closing = true;
      await client.close().catch(() => {});
      throw classify(e, `could not connect to the MCP server "${env.name}"`);
    }
    if (conn.closing)
      throw new ToolError(`the MCP server "${env.name}" closed the connection right after initialize`, {
        kind: "UNAVAILABLE",
      });
    conn.opened = true;
    if (elicits) conn.holder = new ElicitationHolder(env, conn.pending);
    return conn;
  }

  private get requestMs(): number {
    return (this.env.settings.requestTimeoutSeconds ?? 30) * 1000;
  }

  private get parkMs(): number {
    return (this.env.settings.elicitationTimeoutSeconds ?? 600) * 1000;
  }

  /** The stdio server's process id (tests end it to see the connection lost). */
  get pid(): number | undefined {
    return (this.transport as Partial<StdioClientTransport>).pid ?? undefined;
  }

  async list(): Promise<UpstreamListing> {
    try {
      return await listTools(this.client, { timeout: this.requestMs, pauses: this.elicits });
    } catch (e) {
      throw classify(e, `could not list the tools of the MCP server "${this.env.name}"`);
    }
  }

  async call(tool: UpstreamTool, input: Record<string, unknown>, call: UpstreamCall): Promise<unknown> {
    if (this.closing)
      throw new ToolError(`the MCP server "${this.env.name}" is not connected`, { kind: "UNAVAILABLE" });
    const p = new PendingCall(randomUUID(), call.ctx.runId, this.parkMs, (done) => this.pending.delete(done.id));
    this.pending.set(p.id, p);
    const params = { name: tool.name, arguments: input, _meta: { [IDEMPOTENCY_META]: call.idempotencyKey } };
    p.progressTo = (u) => call.ctx.onUpdate(u);
    p.start(
      (signal) =>
        this.client.request({ method: "tools/call", params }, CallToolResultSchema, {
          signal,
          timeout: NO_SDK_TIMEOUT,
          onprogress: (pr) => progress(p, pr),
        }),
      (e, aborted) => {
        const err = classify(e, `the MCP tool "${tool.name}"`);
        if (aborted || !isTransportFailure(e)) return err;
        this.dropped(new Error(`the MCP server "${this.env.name}" could not be reached: ${err.message}`));
        // A request the guarded fetch could not send (NETWORK) lost the connection: its call is UNAVAILABLE
        // (docs/connectors.md §8).
        return err.kind === "NETWORK"
          ? new ToolError(`the MCP tool "${tool.name}": ${err.message}`, { kind: "UNAVAILABLE" })
          : err;
      },
    );
    return this.outcome(
      tool,
      await p.next({ timeoutMs: call.timeoutMs, signal: call.ctx.signal }),
      this.env.instanceId,
      p.id,
    );
  }

  /**
   * Answers the question a parked call asked and continues it: here when this connection
   * holds the call, else through the store and bus to the instance that does.
   */
  async resume(
    tool: UpstreamTool,
    state: unknown,
    answers: Record<string, unknown>,
    call: UpstreamCall,
  ): Promise<unknown> {
    const s = state as ParkedCallState;
    if (typeof s?.pendingId !== "string" || typeof s.instanceId !== "string" || typeof s.elicitationId !== "string")
      throw new ToolError("the parked MCP call's state is not one this connector wrote", {
        kind: "INTERNAL",
        retryable: false,
      });
    const values = Object.values(answers);
    const answer = values.length === 1 ? values[0] : answers;
    const result: ElicitResult = { action: "accept", content: answer as ElicitResult["content"] };
    if (s.instanceId !== this.env.instanceId)
      return this.outcome(
        tool,
        await relayAnswer(this.env, s, result, { timeoutMs: call.timeoutMs, signal: call.ctx.signal }),
        s.instanceId,
        s.pendingId,
      );
    const p = this.pending.get(s.pendingId);
    if (!p || !(p.answer(s.elicitationId, result) || p.hasSteps))
      throw new ToolError(
        `the MCP call this run waited on is gone (the connection to "${this.env.name}" closed since it parked)`,
        { kind: "UNAVAILABLE" },
      );
    p.progressTo = (u) => call.ctx.onUpdate(u);
    return this.outcome(
      tool,
      await p.next({ timeoutMs: call.timeoutMs, signal: call.ctx.signal }),
      s.instanceId,
      s.pendingId,
    );
  }

  /** A step as what the body returns: the mapped result, a thrown failure, or a park on the question. */
  private outcome(tool: UpstreamTool, step: CallStep, holder: string, pendingId: string): unknown {
    if (step.type === "result") return mapResult(tool, step.result);
    if (step.type === "error") throw stepError(step);
    const state: ParkedCallState = { instanceId: holder, pendingId, elicitationId: step.elicitationId };
    return park({
      interactions: [
        {
          question: step.message,
          answerFormat: step.requestedSchema,
          to: "user",
          expiresInSeconds: Math.floor(this.parkMs / 1000),
        },
      ],
      state,
    });
  }

  /**
   * The upstream asked a question. MCP does not say which request it belongs to over
   * stdio, so it is the active call's (the oldest, when several are active); with no call
   * active it is declined.
   */
  private onElicit(params: Parameters<PendingCall["elicit"]>[0]): Promise<ElicitResult> {
    const active = [...this.pending.values()].filter((p) => p.isActive);
    if (!active.length) return Promise.resolve({ action: "decline" });
    return active[0]!.elicit(params);
  }

  /**
   * The connection is gone without tai42 closing it: a stdio process ended, or an HTTP
   * request could not be sent (the server is down, or forgot the session). Reported once
   * to the manager, which reconnects (docs/connectors.md §11); the client is closed so nothing else waits on it.
   */
  private dropped(error: Error): void {
    if (this.closing) return;
    this.closing = true;
    if (!this.opened) return;
    this.holder?.close();
    this.env.lost(error);
    void this.client.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.closing = true;
    this.holder?.close();
    for (const p of [...this.pending.values()]) p.cancelParked("the connection closed");
    await this.client.close().catch(() => {});
  }
}

/** A request that failed below MCP (the HTTP exchange itself), not an upstream's answer or a refusal of ours. */
function isTransportFailure(e: unknown): boolean {
  if (e instanceof McpError || isMalformed(e)) return false;
  return !isToolError(e) || e.kind === "NETWORK";
}

/** An MCP progress notification as a tai42 update (dropped when malformed: an upstream's mistake fails nothing). */
function progress(p: PendingCall, pr: Progress): void {
  const update: ToolUpdate = { progress: pr.progress };
  if (typeof pr.total === "number" && pr.total > 0) update.total = pr.total;
  if (typeof pr.message === "string") update.message = pr.message;
  try {
    p.progressTo?.(update);
  } catch {
    // a negative or non-finite progress: not ours to fail the run over
  }
}
