import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { EVERYTHING, startEverythingHttp } from "../connectors/mcp/support.ts";
import { runCli } from "../helpers/cli.ts";
import { databaseText } from "../helpers/database-text.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { CHANGE, CONNECTOR, PUT } from "../graphql/connector-support.ts";
import { collect, until, wsClient } from "../graphql/support.ts";
import { connect } from "../mcp/support.ts";

/**
 * Security model §3 for the `mcp` kind's stdio `env` (docs/connectors.md §3): a real
 * server-everything whose `env` holds `!ENV` markers to secret values. Its `get-env` tool
 * echoes its whole environment, so dispatching it puts the secrets in the upstream's own
 * answer, which tai42 scrubs (the resolved values are known secrets). After put, listing,
 * dispatch over GraphQL, `/mcp` and the CLI, refresh and subscriptions, the values occur 0
 * times in every response, frame, log line and stored byte. A second connector reaches
 * server-everything over Streamable HTTP with a sealed `headers` value (GAMMA), checked the same way.
 */
const ALPHA = "stdio-leak-alpha-5f4e3d2c1b";
const BETA = "stdio-leak-beta-9a8b7c6d5e";
const GAMMA = "http-leak-gamma-3c2b1a0f9e";
const kind = process.env.TAI_TEST_DB === "postgres" ? "postgres" : "sqlite";
const seen: string[] = [];
const note = (what: string, text: string) => seen.push(`--- ${what}\n${text}`);

describe("an mcp connector's stdio env never leaks (security model §3)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let rt: TestRuntime;
  let server: TaiServer;
  let url = "";
  let admin = "";
  let dbText = "";
  let ws: Client | undefined;
  let upstream: Awaited<ReturnType<typeof startEverythingHttp>> | undefined;

  beforeAll(async () => {
    process.env.STDIO_LEAK_ALPHA = ALPHA;
    process.env.STDIO_LEAK_BETA = BETA;
    process.env.HTTP_LEAK_GAMMA = GAMMA;
    upstream = await startEverythingHttp();
    database = await freshDatabase(kind);
    rt = await testRuntime({ app: new App(), databaseUrl: database.url, env: { TAI_LOG: "info" } });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    admin = await rt.keys.create("stdio-leak-admin", "ADMIN");
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      note(`http ${query.slice(0, 50)}`, text);
      return JSON.parse(text) as { data?: any; errors?: unknown[] };
    };
    ws = wsClient(url, { connectionParams: { authorization: `Bearer ${admin}` } });
    const changes = collect(ws, `subscription { connectorChanged { ${CHANGE} } }`);
    const runs = collect(
      ws,
      `subscription { runEvents { type run { id status content { text } data errorMessage } } }`,
    );
    await until(
      "the subscriptions to listen",
      () => rt.bus.listenerCount("connectorChanged") >= 1 && rt.bus.listenerCount("runEvent") >= 1,
    );

    const settings = {
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      env: { LEAK_ALPHA: "!ENV STDIO_LEAK_ALPHA", LEAK_BETA: "!ENV STDIO_LEAK_BETA" },
    };
    expect((await gql(PUT, { i: { name: "every", kind: "mcp", settings } })).errors).toBeUndefined();
    const http = {
      url: upstream.url,
      headers: { Authorization: "!ENV HTTP_LEAK_GAMMA" },
      allowPrivateNetwork: true,
    };
    expect((await gql(PUT, { i: { name: "everyhttp", kind: "mcp", settings: http } })).errors).toBeUndefined();
    const httpRun = await gql(
      `mutation { dispatch(input: { tool: "everyhttp_echo", input: { message: "over http" } }) { id status content { text } errorMessage } }`,
    );
    expect(httpRun.data?.dispatch?.status).toBe("SUCCEEDED");
    await gql(
      `{ connectors { ${CONNECTOR} changes { ${CHANGE} } } tools(origin: CONNECTOR) { name connector annotations } }`,
    );
    const run = await gql(
      `mutation { dispatch(input: { tool: "every_get-env", input: {} }) { id status content { text } data errorMessage } }`,
    );
    expect(run.data?.dispatch?.status).toBe("SUCCEEDED");
    await gql(
      `{ run(id: "${run.data.dispatch.id}") { status content { text } data events { type run { status content { text } } } } }`,
    );
    await gql(`mutation { refreshConnector(name: "every") { connector { ${CONNECTOR} } change { ${CHANGE} } } }`);
    await gql(`mutation { refreshConnector(name: "everyhttp") { connector { ${CONNECTOR} } change { ${CHANGE} } } }`);
    await changes.waitForData(1, 20_000);
    note("ws connectorChanged", JSON.stringify([changes.data, changes.errors]));
    note("ws runEvents", JSON.stringify([runs.data, runs.errors]));
    changes.stop();
    runs.stop();

    // The MCP door.
    const { client } = await connect(url.replace(/\/graphql$/, "/mcp"), { key: admin });
    const listed = await client.listTools();
    note("mcp tools/list", JSON.stringify(listed));
    const called = (await client.callTool({ name: "every_get-env", arguments: {} })) as CallToolResult;
    note("mcp tools/call get-env", JSON.stringify(called));
    await client.close();

    // The CLI on the same database, logs on: it opens its own upstream connection.
    const cliEnv = {
      DATABASE_URL: database.url,
      TAI_KEY: admin,
      TAI_LOG: "info",
      STDIO_LEAK_ALPHA: ALPHA,
      STDIO_LEAK_BETA: BETA,
      HTTP_LEAK_GAMMA: GAMMA,
    };
    for (const args of [
      ["connectors", "list", "--json"],
      ["tools", "run", "every_get-env", "--input", "{}"],
      ["tools", "run", "everyhttp_echo", "--input", '{"message":"cli over http"}'],
    ]) {
      const r = await runCli(args, cliEnv);
      note(`cli ${args.join(" ")}`, `${r.code}\n${r.stdout}\n${r.stderr}`);
    }
    await ws.dispose();
    await server.stop();
    note("runtime logs", rt.logLines.join("\n"));
    await rt.close();
    dbText = await databaseText(database.url);
  }, 240_000);

  afterAll(async () => {
    await upstream?.stop();
    await database?.drop();
  });

  it("exercised the doors (the search is not vacuous)", () => {
    const all = seen.join("\n");
    expect(all).toContain("!ENV STDIO_LEAK_ALPHA");
    // get-env answered with the environment: the variable names are there, their values scrubbed.
    expect(seen.filter((s) => s.includes("LEAK_BETA") && s.includes("[redacted]")).length).toBeGreaterThanOrEqual(3);
    expect(seen.find((s) => s.startsWith("--- mcp tools/call"))).toContain("LEAK_ALPHA");
    expect(seen.find((s) => s.startsWith("--- cli tools run"))).toContain("LEAK_ALPHA");
    expect(all).toMatch(/"level":"(info|warn|error)"/);
    expect(dbText).toContain("!ENV STDIO_LEAK_BETA");
    expect(dbText).toContain("!ENV HTTP_LEAK_GAMMA");
    expect(seen.find((s) => s.startsWith("--- cli tools run everyhttp_echo"))).toContain("Echo: cli over http");
    expect(dbText).toContain("LEAK_ALPHA");
  });

  for (const [name, value] of Object.entries({ ALPHA, BETA, GAMMA })) {
    it(`never serves, logs or prints the ${name} value`, () => {
      expect(seen.filter((s) => s.includes(value)).map((s) => s.split("\n")[0])).toEqual([]);
    });
    it(`never stores the ${name} value`, () => {
      expect(dbText.includes(value)).toBe(false);
    });
  }
});
