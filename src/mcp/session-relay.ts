import { randomUUID } from "node:crypto";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  type ElicitRequestFormParams,
  type ElicitResult,
  type JSONRPCNotification,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Bus } from "../events/bus.ts";

interface Waiter {
  sessionId: string;
  settle(message: unknown): void;
}

/** A request in flight on this instance: what cancels it (the client's `notifications/cancelled`, as posted). */
export interface Live {
  cancel(notification: JSONRPCNotification): void;
}

/**
 * Routes what an MCP client posts on a session to the request it concerns, on whichever
 * instance serves that request (docs/mcp.md, "Sessions across instances"). A request's
 * response stream is held by the instance that received it, but the client's next POST
 * may land on any instance: its answer to an elicitation, or its
 * `notifications/cancelled`. Such a message is delivered here when this instance holds
 * the request, and published on the bus otherwise, for the instance that does.
 */
export class SessionRelay {
  private readonly live = new Map<string, Map<RequestId, Live>>();
  private readonly waiting = new Map<string, Waiter>();
  private readonly unlisten: () => void;

  constructor(private readonly bus: Bus) {
    this.unlisten = bus.listen("mcpClientMessage", ({ sessionId, message }) => void this.deliver(sessionId, message));
  }

  /** Registers requests of a session in flight here; returns the release. */
  hold(sessionId: string, ids: RequestId[], live: Live): () => void {
    const held = this.live.get(sessionId) ?? new Map<RequestId, Live>();
    this.live.set(sessionId, held);
    for (const id of ids) held.set(id, live);
    return () => {
      for (const id of ids) if (held.get(id) === live) held.delete(id);
      if (!held.size && this.live.get(sessionId) === held) this.live.delete(sessionId);
    };
  }

  /** A message the client posted on a session (not a request): delivered here, or sent to the other instances. */
  fromClient(sessionId: string, message: unknown): void {
    if (!this.deliver(sessionId, message)) this.bus.publish("mcpClientMessage", { sessionId, message });
  }

  /**
   * Sends `elicitation/create` on the stream of request `relatedRequestId`, and resolves
   * with the client's answer, whichever instance it is posted to. The request's id is
   * random, so answers never collide across the transports of one session.
   * Contract: rejects when `signal` aborts (and tells the client the question is withdrawn).
   */
  ask(
    sessionId: string,
    transport: Transport,
    relatedRequestId: RequestId,
    params: ElicitRequestFormParams,
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const id = `tai42-elicit-${randomUUID()}`;
    return new Promise<ElicitResult>((resolve, reject) => {
      const done = () => {
        this.waiting.delete(id);
        signal.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        transport
          .send(
            {
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: id, reason: "the question was withdrawn" },
            },
            { relatedRequestId },
          )
          .catch(() => {});
        reject(signal.reason instanceof Error ? signal.reason : new Error("the elicitation was abandoned"));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, {
        sessionId,
        settle: (message) => {
          done();
          if (isJSONRPCErrorResponse(message))
            return reject(new Error(`the client refused the elicitation: ${message.error.message}`));
          const parsed = ElicitResultSchema.safeParse((message as { result?: unknown }).result);
          if (parsed.success) resolve(parsed.data);
          else reject(new Error("the client's elicitation result is malformed"));
        },
      });
      transport
        .send({ jsonrpc: "2.0", id, method: "elicitation/create", params }, { relatedRequestId })
        .catch((e: Error) => {
          done();
          reject(e);
        });
    });
  }

  dispose(): void {
    this.unlisten();
  }

  /** Delivers a client message to what it concerns on this instance; false when that is not here. */
  private deliver(sessionId: string, message: unknown): boolean {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const waiter = this.waiting.get(String(message.id));
      if (!waiter || waiter.sessionId !== sessionId) return false;
      waiter.settle(message);
      return true;
    }
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const live = requestId === undefined ? undefined : this.live.get(sessionId)?.get(requestId);
      if (!live) return false;
      live.cancel(message);
      return true;
    }
    // Other notifications (initialized, roots changed, progress) concern no request here.
    return true;
  }
}
