import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../auth/roles.ts";
import type { Runtime } from "../runtime.ts";
import type { SessionRelay } from "./session-relay.ts";
import type { McpSession, McpSessions } from "./sessions.ts";

/** Options of the `/mcp` door (http-door.ts). */
export interface McpHttpOptions {
  /**
   * Registers a stream held by an API key; `end` is called if the key is revoked. Returns
   * the release. Contract: as `KeyStreams.hold` (server/key-streams.ts).
   */
  holdKey?: (keyId: string, end: () => void) => () => void;
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

/** Holds a stream on the caller's API key (`end` is called if the key is revoked); returns the release. */
export function holdCallerKey(ctx: McpDoorContext, caller: Caller, end: () => void): () => void {
  return caller.keyId && ctx.options.holdKey ? ctx.options.holdKey(caller.keyId, end) : () => {};
}
