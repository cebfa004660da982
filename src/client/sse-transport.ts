import { createClient, type Client } from "graphql-sse";
import { authorizationOf, type Credential, type Transport } from "./transport.ts";

/** Options of the SSE transport. */
export interface SseTransportOptions {
  /** The http(s):// URL of /graphql. */
  url: string;
  apiKey?: Credential;
  /** The fetch implementation; the global one by default. */
  fetch?: typeof fetch | undefined;
}

/**
 * Subscriptions over GraphQL over SSE in distinct-connections mode (one streamed POST per
 * subscription), which yoga serves natively. The API key travels as the Authorization header.
 */
export function sseTransport(options: SseTransportOptions): Transport {
  let client: Client | undefined;
  const sse = () =>
    (client ??= createClient({
      url: options.url,
      headers: (): Record<string, string> => {
        const authorization = authorizationOf(options.apiKey);
        return authorization ? { authorization } : {};
      },
      singleConnection: false,
      // A dropped stream reaches its subscription as an error (see transport.ts).
      retryAttempts: 0,
      ...(options.fetch ? { fetchFn: options.fetch } : {}),
    }));
  return {
    subscribe: (request, sink) => sse().subscribe(request, sink as never),
    reconnect: () => {},
    dispose: async () => client?.dispose(),
  };
}
