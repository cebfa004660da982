import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { buildApp } from "../../src/server/build-app.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { percentile, round } from "../lib/percentiles.ts";
import { DISPATCH, ECHO_TEXT } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * Issue 24: what a connector tool costs on top of its upstream. The same MCP server
 * (server-everything over stdio, its `echo` tool) is called one call after the other by
 * the bare MCP SDK `Client.callTool` (the baseline) and, as the connector tool
 * `everything_echo`, through tai42's in-process chokepoint (`rt.dispatcher.run`: tier,
 * run log, the connection's call). The connector's overhead (tai42 − bare, p50) is set
 * against what the GraphQL door adds to a dispatch of the local `echo` tool in the same
 * run and runtime (GraphQL `dispatch` over HTTP − in-process dispatch, p50): the target is
 * a ratio ≤ 1, the connector adding less than the door every HTTP caller already pays.
 * Sides alternate in blocks (forward, then backward) so a drift of the machine's load
 * favours none; each side is warmed up first.
 */
export interface ConnectorResult {
  settings: BenchSettings["connector"];
  sides: {
    /** The bare SDK client's `callTool` of server-everything's echo. */
    bare: Side;
    /** The connector tool through `rt.dispatcher.run`; null when not measured. */
    tai42: Side | null;
    /** The local demo `echo` through `rt.dispatcher.run`. */
    inProcessEcho: Side;
    /** The local demo `echo` through GraphQL `dispatch` over HTTP (USER key, one call at a time). */
    graphqlEcho: Side;
  };
  /** Why the connector side was not measured (the connector could not be put). */
  notMeasured?: string;
  /** p50 ms added: by the connector path over the bare client, by the GraphQL door over in-process dispatch. */
  overheadMs: { connector: number | null; graphql: number };
  ratios: { "tai42/bare p50": number | null; "connectorOverhead/graphqlOverhead": number | null };
}

export interface Side {
  calls: number;
  p50: number;
  p99: number;
  mean: number;
}

const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const CONNECTOR = "everything";
const USER = callerOf("USER", "bench", "bench");
const ADMIN = callerOf("ADMIN", "bench-admin", "bench-admin");

type Call = () => Promise<void>;

function side(ms: number[]): Side {
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return {
    calls: ms.length,
    p50: round(percentile(ms, 50), 3),
    p99: round(percentile(ms, 99), 3),
    mean: round(mean, 3),
  };
}

async function timedCalls(call: Call, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    into.push(performance.now() - t);
  }
}

/** The bare baseline: the SDK's own client on its own server-everything process. */
async function bareClient(): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new Client({ name: "tai42-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
  return {
    call: async () => {
      const result = await client.callTool({ name: "echo", arguments: { message: ECHO_TEXT } });
      const text = (result.content as { text?: string }[] | undefined)?.[0]?.text;
      if (text !== `Echo: ${ECHO_TEXT}`) throw new Error(`bench: the bare echo answered ${JSON.stringify(result)}`);
    },
    close: () => client.close(),
  };
}

async function dispatchOf(rt: Runtime, tool: string, input: Record<string, unknown>, expected: string): Promise<void> {
  const run = await rt.dispatcher.run({ tool, input, caller: USER, door: "runtime" });
  if (run.status !== "SUCCEEDED") throw new Error(`bench: ${tool} ended ${run.status}: ${run.errorMessage}`);
  if (!JSON.stringify(run).includes(expected)) throw new Error(`bench: ${tool} did not answer ${expected}`);
}

/** The connector side: the stored connector's put (which connects and lists), then its echo tool's dispatch. */
async function connectorCall(rt: Runtime): Promise<Call | string> {
  try {
    await rt.connectors.put(ADMIN, {
      name: CONNECTOR,
      kind: "mcp",
      settings: { command: process.execPath, args: [EVERYTHING, "stdio"] },
    });
  } catch (error) {
    return `the mcp connector could not be put: ${(error as Error).message}`;
  }
  return () => dispatchOf(rt, `${CONNECTOR}_echo`, { message: ECHO_TEXT }, `Echo: ${ECHO_TEXT}`);
}

async function graphqlCall(url: string, key: string): Promise<Call> {
  const body = JSON.stringify({ query: DISPATCH, variables: { input: { tool: "echo", input: { text: ECHO_TEXT } } } });
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  return async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    const text = await res.text();
    if (!res.ok || !text.includes('"SUCCEEDED"'))
      throw new Error(`bench: GraphQL dispatch answered ${res.status} ${text.slice(0, 300)}`);
  };
}

export async function connectorScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<ConnectorResult> {
  const s = settings.connector;
  const db = await dbs.create("sqlite");
  const rt = await createRuntime({
    config: { ...loadConfig({}), databaseUrl: db.url },
    app: new App(),
    loadModules: false,
    log: createLogger({}, () => {}),
  });
  const server = buildApp(rt);
  const bare = await bareClient();
  try {
    const url = await server.start(0, "127.0.0.1");
    const key = await rt.keys.create("bench", "USER");
    const connector = await connectorCall(rt);
    const calls: Record<string, Call> = {
      bare: bare.call,
      inProcessEcho: () => dispatchOf(rt, "echo", { text: ECHO_TEXT }, ECHO_TEXT),
      graphqlEcho: await graphqlCall(url, key),
    };
    if (typeof connector === "function") calls.tai42 = connector;
    else log(`  connector side not measured: ${connector}`);

    const names = Object.keys(calls);
    const ms: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (const n of names) await timedCalls(calls[n], s.warmupCalls, []);
    const block = Math.max(1, Math.floor(s.calls / s.blocks));
    for (let b = 0; b < s.blocks; b++)
      for (const n of b % 2 === 0 ? names : [...names].reverse()) await timedCalls(calls[n], block, ms[n]);

    const sides = {
      bare: side(ms.bare),
      tai42: ms.tai42 ? side(ms.tai42) : null,
      inProcessEcho: side(ms.inProcessEcho),
      graphqlEcho: side(ms.graphqlEcho),
    };
    const connectorOverhead = sides.tai42 ? round(sides.tai42.p50 - sides.bare.p50, 3) : null;
    const graphqlOverhead = round(sides.graphqlEcho.p50 - sides.inProcessEcho.p50, 3);
    const result: ConnectorResult = {
      settings: s,
      sides,
      ...(typeof connector === "string" ? { notMeasured: connector } : {}),
      overheadMs: { connector: connectorOverhead, graphql: graphqlOverhead },
      ratios: {
        "tai42/bare p50": sides.tai42 ? round(sides.tai42.p50 / sides.bare.p50, 3) : null,
        "connectorOverhead/graphqlOverhead":
          connectorOverhead === null ? null : round(connectorOverhead / graphqlOverhead, 3),
      },
    };
    const show = (n: string, f: Side | null) => (f ? `${n} p50 ${f.p50} ms (mean ${f.mean})` : `${n} not measured`);
    log(
      `  ${block * s.blocks} calls each: ${[show("bare SDK", sides.bare), show("connector", sides.tai42), show("in-process echo", sides.inProcessEcho), show("GraphQL echo", sides.graphqlEcho)].join("; ")}`,
    );
    log(
      `  overhead p50: connector ${connectorOverhead ?? "n/a"} ms, GraphQL door ${graphqlOverhead} ms (ratio ${result.ratios["connectorOverhead/graphqlOverhead"] ?? "n/a"})`,
    );
    return result;
  } finally {
    await bare.close();
    await server.stop();
    await rt.close();
    await db.drop();
  }
}
