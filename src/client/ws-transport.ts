import { createClient, type Client } from "graphql-ws/client";
import { authorizationOf, type Credential, type Transport } from "./transport.ts";

/** Options of the graphql-ws transport. */
export interface WsTransportOptions {
  /** The http(s):// or ws(s):// URL of /graphql. */
  url: string;
  apiKey?: Credential;
  /** A WebSocket constructor; the global one by default (browsers, Node 22+). */
  webSocketImpl?: unknown;
}

/** The ws(s):// URL of an http(s):// URL (a ws(s):// URL is kept). */
export function webSocketUrl(url: string): string {
  return url.replace(/^http(s?):/i, "ws$1:");
}

/**
 * Subscriptions over graphql-ws, multiplexed on one lazily opened socket. The API key
 * travels as `connectionParams.authorization` ("Bearer <key>"), checked on connection_init; a credential function
 * is asked on each connection.
 */
export function wsTransport(options: WsTransportOptions): Transport {
  let client: Client | undefined;
  // Created on first use, so that a client that only makes requests, or streams over SSE,
  // needs no WebSocket implementation.
  const ws = () =>
    (client ??= createClient({
      url: webSocketUrl(options.url),
      webSocketImpl: options.webSocketImpl,
      connectionParams: () => {
        const authorization = authorizationOf(options.apiKey);
        return authorization ? { authorization } : undefined;
      },
      lazy: true,
      // A dropped socket reaches each subscription as an error: the streams resume from
      // their own cursor (see transport.ts).
      retryAttempts: 0,
    }));
  return {
    subscribe: (request, sink) => ws().subscribe(request, sink as never),
    // A terminated socket reaches each subscription as a lost connection (close code 4499).
    reconnect: () => client?.terminate(),
    dispose: async () => {
      await client?.dispose();
    },
  };
}
