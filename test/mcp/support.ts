import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** A tai42 server listening on 127.0.0.1 for the MCP tests. */
export interface McpTestServer {
  rt: TestRuntime;
  app: TaiServer;
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  stop(): Promise<void>;
}

/** Starts a runtime and its server on a free port. */
export async function startServer(
  options: {
    app?: App;
    env?: NodeJS.ProcessEnv;
    config?: Partial<Config>;
    databaseUrl?: string;
    kind?: "sqlite" | "postgres";
    /** The port to listen on; default: a free one. */
    port?: number;
  } = {},
): Promise<McpTestServer> {
  const rt = await testRuntime(options);
  const app = buildApp(rt);
  const url = (await app.start(options.port ?? 0, "127.0.0.1")).replace(/\/graphql$/, "/mcp");
  return {
    rt,
    app,
    url,
    async stop() {
      await app.stop();
      await rt.dispose();
    },
  };
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** An API key sent as `Authorization: Bearer <key>`; none: the anonymous role. */
  key?: string;
  capabilities?: ClientCapabilities;
  /** Answers `elicitation/create` (declares the capability). */
  onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** Replaces fetch (to route requests to another instance). */
  fetch?: FetchLike;
  headers?: Record<string, string>;
}

/** The SDK's own Client over its Streamable HTTP transport, connected (initialize done). */
export async function connect(
  url: string,
  options: ConnectOptions = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers = { ...options.headers, ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: options.fetch });
  const capabilities = { ...options.capabilities, ...(options.onElicit ? { elicitation: { form: {} } } : {}) };
  const client = new Client({ name: "tai42-tests", version: "1.0.0" }, { capabilities });
  if (options.onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => options.onElicit!(request));
  await client.connect(transport);
  return { client, transport };
}

/** The text of a tool result's content blocks, joined. */
export function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? "").join("\n");
}
