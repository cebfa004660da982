import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../auth/roles.ts";
import type { Runtime } from "../runtime.ts";
import type { SessionRelay } from "./session-relay.ts";
import type { McpSession, McpSessions } from "./sessions.ts";

/** Options of the `/mcp` door (http-door.ts). */
export interface McpHttpOptions {
  /**
   * Registers a stream held by a caller; `end` is called if its key is revoked or its access token ends. Returns the
   * release. Contract: as `KeyStreams.hold` (server/key-streams.ts).
   */
  holdCaller?: (caller: Caller, end: (reason: string) => void) => () => void;
}

/** What every step of the `/mcp` door shares: the runtime, its options, the sessions, the relay, the GET streams. */
export interface McpDoorContext {
  rt: Runtime;
  options: McpHttpOptions;
  sessions: McpSessions;
  relay: SessionRelay;
  /** The ends of the open GET streams, called when the door closes. */
  streams: Set<() => void>;
}

export type Headers = Record<string, string>;

/** One request to `/mcp` once its caller and session are known, with the CORS headers of its answer. */
export interface McpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  caller: Caller;
  session: McpSession | null;
  cors: Headers;
}

/** Holds a stream on the caller's key or token (`end` is called when it is revoked or ends); returns the release. */
export function holdCallerKey(ctx: McpDoorContext, caller: Caller, end: (reason: string) => void): () => void {
  return ctx.options.holdCaller ? ctx.options.holdCaller(caller, end) : () => {};
}
