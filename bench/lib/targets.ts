import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { HttpTarget } from "./load.ts";

/** The text every echo request carries. */
export const ECHO_TEXT = "hello, benchmark";

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

/** (a) raw node:http: POST { text }. */
export function rawTarget(url: string): HttpTarget {
  return { url, headers: JSON_HEADERS, body: JSON.stringify({ text: ECHO_TEXT }) };
}

/** (b) bare yoga: the echo mutation. */
export function yogaTarget(url: string): HttpTarget {
  return {
    url,
    headers: JSON_HEADERS,
    body: JSON.stringify({
      query: "mutation Echo($text: String!) { echo(text: $text) }",
      variables: { text: ECHO_TEXT },
    }),
  };
}

/** The dispatch mutation as a client sends it: the run's id, status and content. */
export const DISPATCH = /* GraphQL */ `
  mutation Dispatch($input: DispatchInput!) {
    dispatch(input: $input) {
      id
      status
      content {
        type
        text
      }
    }
  }
`;

/** tai42: `dispatch` of the demo echo tool, with an API key. */
export function tai42Target(url: string, key: string): HttpTarget {
  return {
    url,
    headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: DISPATCH, variables: { input: { tool: "echo", input: { text: ECHO_TEXT } } } }),
  };
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * (c) an MCP server (the SDK peer, or tai42's `/mcp` with its API key): one `tools/call`
 * of echo per request; with sessions, one per connection.
 */
export function mcpTarget(url: string, sessions: string[] = [], key?: string): HttpTarget {
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return {
    url,
    headers: sessions.length
      ? { ...MCP_HEADERS, ...auth, "mcp-protocol-version": LATEST_PROTOCOL_VERSION }
      : { ...MCP_HEADERS, ...auth },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: ECHO_TEXT } },
    }),
    headersFor: sessions.length ? (i) => ({ "mcp-session-id": sessions[i % sessions.length] }) : undefined,
  };
}

/** Opens `n` MCP sessions the way a client does (initialize, then notifications/initialized); returns their ids. */
export async function openMcpSessions(url: string, n: number, key?: string): Promise<string[]> {
  const headers: Record<string, string> = key ? { ...MCP_HEADERS, authorization: `Bearer ${key}` } : MCP_HEADERS;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const init = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "bench", version: "1.0.0" },
        },
      }),
    });
    const id = init.headers.get("mcp-session-id");
    await init.text();
    if (!init.ok || !id) throw new Error(`MCP initialize failed: HTTP ${init.status}`);
    const ack = await fetch(url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await ack.text();
    ids.push(id);
  }
  return ids;
}

/**
 * Sends one request of `target` and checks that the answer carries the echoed text (and,
 * for tai42, a SUCCEEDED run), so that a load never measures error responses.
 */
export async function checkTarget(name: string, target: HttpTarget): Promise<void> {
  const res = await fetch(target.url, {
    method: "POST",
    headers: { ...target.headers, ...target.headersFor?.(0) },
    body: target.body,
  });
  const text = await res.text();
  const ok =
    res.ok &&
    text.includes(ECHO_TEXT) &&
    !/"errors"|"isError":\s*true|"error"/.test(text) &&
    (!text.includes('"dispatch"') || text.includes('"SUCCEEDED"'));
  if (!ok) throw new Error(`${name}: the check request failed (HTTP ${res.status}): ${text.slice(0, 300)}`);
}
