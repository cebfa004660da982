import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { fakeTool } from "../fixtures/connector-kinds.ts";
import { runCli } from "../helpers/cli.ts";
import { databaseText } from "../helpers/database-text.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { CHANGE, CONNECTOR, fakeApp, PUT } from "../graphql/connector-support.ts";
import { collect, until, wsClient } from "../graphql/support.ts";

/**
 * Security model §3 for connector settings (docs/connectors.md §3): a connector whose sealed
 * `token` and `headers` hold `!ENV` markers to secret values. After put, listing, dispatch,
 * refresh, a failing call, subscriptions and the CLI, the values occur 0 times in every
 * response, frame, log line and stored byte. The upstream is the fake kind (a real plugin);
 * the MCP kind's stdio `env` is covered by leak-connectors-stdio.test.ts.
 */
const TOKEN = "conn-leak-token-8e7d6c5b4a";
const HEADER = "conn-leak-header-1a2b3c4d5e";
const seen: string[] = [];
const note = (what: string, text: string) => seen.push(`--- ${what}\n${text}`);

describe("connector settings never leak (security model §3)", () => {
  const { app, fake } = fakeApp();
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let rt: TestRuntime;
  let server: TaiServer;
  let url = "";
  let admin = "";
  let dbText = "";
  let ws: Client | undefined;

  beforeAll(async () => {
    process.env.CONN_LEAK_TOKEN = TOKEN;
    process.env.CONN_LEAK_HEADER = HEADER;
    database = await freshDatabase(testDbKind());
    rt = await testRuntime({ app, databaseUrl: database.url, env: { TAI_LOG: "info" } });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    admin = await rt.keys.create("leak-admin", "ADMIN");
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
    const tools = collect(ws, `subscription { toolsChanged { name annotations inputSchema } }`);
    await until(
      "the subscriptions to listen",
      () => rt.bus.listenerCount("connectorChanged") >= 1 && rt.bus.listenerCount("toolsChanged") >= 1,
    );

    const settings = {
      upstream: "vault",
      token: "!ENV CONN_LEAK_TOKEN",
      headers: { authorization: "!ENV CONN_LEAK_HEADER" },
    };
    expect((await gql(PUT, { i: { name: "vault", kind: "fake", settings } })).errors).toBeUndefined();
    expect(fake.upstream("vault").lastSettings).toMatchObject({ token: TOKEN, headers: { authorization: HEADER } });
    await gql(
      `{ connectors { ${CONNECTOR} changes { ${CHANGE} } } tools(origin: CONNECTOR) { name connector annotations } }`,
    );
    await gql(
      `mutation { dispatch(input: { tool: "vault_echo", input: { text: "hi" } }) { status content { text } data errorMessage } }`,
    );
    fake.upstream("vault").failCalls.push(new Error("upstream refused the call"));
    await gql(
      `mutation { dispatch(input: { tool: "vault_echo", input: { text: "again" } }) { status errorKind errorMessage } }`,
    );
    // A literal where a marker belongs is refused and the refusal does not echo it.
    await gql(PUT, { i: { name: "vault2", kind: "fake", settings: { upstream: "v2", token: TOKEN } } });
    fake.upstream("vault").changeTools([fakeTool("echo"), fakeTool("lookup")]);
    await gql(`mutation { refreshConnector(name: "vault") { connector { ${CONNECTOR} } change { ${CHANGE} } } }`);
    await changes.waitForData(2, 20_000);
    note("ws connectorChanged", JSON.stringify([changes.data, changes.errors]));
    note("ws toolsChanged", JSON.stringify([tools.data, tools.errors]));
    changes.stop();
    tools.stop();

    // The CLI on the same database, logs on.
    const cliEnv = {
      DATABASE_URL: database.url,
      TAI_KEY: admin,
      TAI_LOG: "info",
      TAI_MODULES: "test/fixtures/connector-kind-module.ts",
      CONN_LEAK_TOKEN: TOKEN,
      CONN_LEAK_HEADER: HEADER,
    };
    for (const args of [
      ["connectors", "list", "--json"],
      ["connectors", "refresh", "vault"],
      ["tools", "run", "vault_echo", "--input", '{"text":"cli"}'],
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
    await database?.drop();
  });

  it("exercised the doors (the search is not vacuous)", () => {
    const all = seen.join("\n");
    expect(all).toContain("!ENV CONN_LEAK_TOKEN");
    expect(all).toContain("vault_lookup");
    expect(all).toContain("upstream refused the call");
    expect(all).toContain("/settings/token");
    expect(all).toMatch(/"level":"(info|warn|error)"/);
    expect(dbText).toContain("!ENV CONN_LEAK_HEADER");
  });

  for (const [name, value] of Object.entries({ TOKEN, HEADER })) {
    it(`never serves, logs or prints the ${name} value`, () => {
      expect(seen.filter((s) => s.includes(value)).map((s) => s.split("\n")[0])).toEqual([]);
    });
    it(`never stores the ${name} value`, () => {
      expect(dbText.includes(value)).toBe(false);
    });
  }
});
