import { spawn, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, runCli } from "../helpers/cli.ts";
import { databaseText } from "../helpers/database-text.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { collect, until, wsClient } from "../graphql/support.ts";
import { coveredForms } from "../fixtures/leak-tools.ts";

/**
 * Security model §3, end to end: a real `tai serve` process holds `!ENV` presets, a
 * manifest with `label`, `cache` and `monitor` branches, and configured credentials;
 * every door is exercised (HTTP, graphql-ws, SSE, the CLI, agentStream, callbacks), the
 * server restarts on the same database and everything is read back. No response, frame,
 * chunk, log line or database byte may hold a secret value.
 */
const ALPHA = "leak-alpha-secret-1f2e3d4c5b";
const BETA = "leak-beta-secret-9a8b7c6d5e";
const ADMIN_KEY = "leak-admin-key-0123456789abcdef";
const SIGNING_KEY = "leak-signing-key-5e6f7a8b9c";
const SIGNATURE = createHmac("sha256", SIGNING_KEY).update("sign this please").digest("hex");
/**
 * The caller's password to `first_use` (declared writeOnly) and the token its body redacts on first use
 * (test/fixtures/leak-tools.ts).
 */
const PASSWORD = "leak-first-use-password-7d6c5b4a";
const TOKEN = "leak-first-use-token-3e2d1c0b9a";
/**
 * Every value that must not leak, and each covered encoding of the ones a tool answers encoded (`first_use`,
 * `encode_back` over ALPHA).
 */
const SECRETS: Record<string, string> = {
  ALPHA,
  BETA,
  ADMIN_KEY,
  SIGNING_KEY,
  SIGNATURE,
  PASSWORD,
  TOKEN,
  ...Object.fromEntries(Object.entries(coveredForms(ALPHA, true)).map(([form, v]) => [`ALPHA ${form}`, v])),
  ...Object.fromEntries(Object.entries(coveredForms(PASSWORD, false)).map(([form, v]) => [`PASSWORD ${form}`, v])),
  ...Object.fromEntries(Object.entries(coveredForms(TOKEN, false)).map(([form, v]) => [`TOKEN ${form}`, v])),
};

const root = resolve(import.meta.dirname, "..", "..");
const seen: string[] = [];
const note = (what: string, text: string) => seen.push(`--- ${what}\n${text}`);

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** `tai serve` with logs on (stderr captured into `seen`). */
async function serve(databaseUrl: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("PRISMA_") && !k.startsWith("TAI_") && k !== "REDIS_URL" && k !== "DATABASE_URL",
    ),
  );
  const child: ChildProcess = spawn(process.execPath, [join(root, "bin", "tai.mjs"), "serve"], {
    cwd: root,
    env: { ...clean, HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: databaseUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await until("tai serve to listen", () => /listening on http/.test(out) || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`tai serve exited: ${out}${err}`);
  return {
    url: /listening on (http:\/\/\S+)/.exec(out)![1],
    async stop() {
      child.kill("SIGTERM");
      await exited;
      note("server stdout", out);
      note("server stderr (logs)", err);
    },
  };
}

function client(url: string) {
  return async (query: string, variables: Record<string, unknown> = {}, key: string | null = ADMIN_KEY) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    note(`http ${query.slice(0, 60)}`, text);
    return JSON.parse(text) as { data?: any; errors?: any[] };
  };
}

const RUN = "id tool status input data details errorKind errorMessage content { text } attempts { errorMessage }";

describe("no secret leaks through any door, before or after a restart (security model §3)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const env = {
    TAI_ADMIN_KEY: ADMIN_KEY,
    TAI_DEMO_SIGNING_KEY: SIGNING_KEY,
    EXT_LEAK_ALPHA: ALPHA,
    EXT_LEAK_BETA: BETA,
    TAI_SCRIPTED_DELAY_MS: "0",
    TAI_MODULES: "test/fixtures/leak-tools.ts",
    LEAK_FIRST_USE_TOKEN: TOKEN,
  };
  let dbText = "";

  beforeAll(async () => {
    database = await freshDatabase();
    let server = await serve(database.url, env);
    let gql = client(`${server.url}`);

    // As ADMIN: !ENV presets over several tools, and a manifest whose settings use !ENV.
    const presets = [
      { name: "leak_kv", baseTool: "kv_put", fixedKwargs: { key: "leak", value: { token: "!ENV EXT_LEAK_ALPHA" } } },
      { name: "leak_clock", baseTool: "clock", fixedKwargs: { timeZone: "!ENV EXT_LEAK_BETA" } },
      { name: "leak_echo", baseTool: "echo", fixedKwargs: { text: "!ENV EXT_LEAK_ALPHA" } },
      { name: "leak_encode", baseTool: "encode_back", fixedKwargs: { secret: "!ENV EXT_LEAK_ALPHA" } },
    ];
    for (const p of presets)
      expect(
        (
          await gql(`mutation($i: PresetInput!) { createPreset(input: $i) { name } }`, {
            i: { ...p, description: "leak test" },
          })
        ).errors,
      ).toBeUndefined();
    const document = {
      extensionsModules: ["tai42/contrib"],
      extensions: {
        echo: [[{ name: "label", config: { label: "!ENV EXT_LEAK_BETA" } }]],
        leak_echo: [["cache"], ["monitor"]],
      },
    };
    expect(
      (
        await gql(`mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`, {
          i: { name: "leaky", document },
        })
      ).errors,
    ).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "leaky") { name } }`)).errors).toBeUndefined();
    const reader = (await gql(`mutation { createApiKey(name: "reader", role: READER) }`)).data.createApiKey as string;

    // graphql-ws: toolsChanged frames, until one arrives (each poll changes the surface once more).
    const ws = wsClient(server.url, { connectionParams: { authorization: `Bearer ${ADMIN_KEY}` } });
    const tools = collect(ws, "subscription { toolsChanged { name label fixedKwargs } }");
    let pings = 0;
    await until(
      "a toolsChanged frame",
      async () => {
        if (tools.data.length) return true;
        await gql(
          `mutation($n: String!) { createPreset(input: { name: $n, description: "ping", baseTool: "echo", fixedKwargs: {} }) { name } }`,
          { n: `ping_${pings++}` },
        );
        return false;
      },
      20_000,
    );

    // HTTP GraphQL.
    const ids: string[] = [];
    for (const [tool, input] of [
      ["leak_kv", {}],
      ["leak_clock", {}],
      ["leak_echo", {}],
      ["leak_echo_cache", {}],
      ["leak_echo_cache", {}],
      ["leak_echo_monitor", {}],
      ["echo_label", { text: "hi" }],
      ["leak_encode", {}],
      ["first_use", { password: PASSWORD }],
    ] as const) {
      const r = await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { ${RUN} } }`,
        { t: tool, i: input },
      );
      ids.push(r.data.dispatch.id);
    }
    // A secret-tier tool's output reaches its caller once, in the answer to its own dispatch
    // (docs/security-model.md §3): that one answer is checked here and kept out of `seen`.
    const signed = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({
        query: `mutation { dispatch(input: { tool: "sign_message", input: { message: "sign this please" } }) { ${RUN} } }`,
      }),
    }).then((r) => r.json() as Promise<{ data: { dispatch: { id: string; data: unknown } } }>);
    expect(signed.data.dispatch.data).toEqual({ algorithm: "HMAC-SHA256", signature: SIGNATURE });
    ids.push(signed.data.dispatch.id);
    await gql(
      `{ tools { name label fixedKwargs } presets { fixedKwargs } activeManifest { document } recentSpans { attributes } }`,
    );
    await gql(`mutation { dispatch(input: { tool: "kv_get", input: { key: "leak" } }) { ${RUN} } }`, {}, reader);

    // graphql-ws: a mutation, and an agent whose model calls kv_get and echo.
    const viaWs = collect(ws, `mutation { dispatch(input: { tool: "leak_echo", input: {} }) { ${RUN} } }`);
    await viaWs.waitForEnd(20_000);
    const firstUseWs = collect(
      ws,
      `mutation($i: JSONObject!) { dispatch(input: { tool: "first_use", input: $i }) { ${RUN} } }`,
      { i: { password: PASSWORD } },
    );
    await firstUseWs.waitForEnd(20_000);
    note("ws first_use", JSON.stringify([firstUseWs.data, firstUseWs.errors]));
    const agent = collect(
      ws,
      `subscription($i: AgentRunInput!) { agentStream(input: $i) { __typename ... on MessageDelta { text } ... on MessageFinal { text } ... on ToolResultStep { tool result } ... on ToolCallStep { args } } }`,
      { i: { userMessage: "recall leak", toolNames: ["kv_get", "leak_echo"], llmProvider: "scripted" } },
    );
    await agent.waitForEnd(30_000);

    // SSE: a run's events, replayed.
    for (const id of ids.slice(0, 3)) {
      const res = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: `Bearer ${ADMIN_KEY}`,
        },
        body: JSON.stringify({
          query: `subscription($r: ID!) { runEvents(runId: $r, afterSeq: 0) { type run { ${RUN} } } }`,
          variables: { r: id },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      note("sse", await res.text().catch((e: Error) => `(ended: ${e.message})`));
    }

    // The callbacks route.
    const cb = await fetch(`${new URL(server.url).origin}/callbacks/${"x".repeat(32)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: ALPHA }),
    });
    note("callback", await cb.text());

    // The CLI, on the same database, logs on.
    for (const args of [
      ["tools", "run", "leak_echo", "--input", "{}"],
      ["tools", "run", "leak_clock", "--input", "{}"],
      ["tools", "run", "leak_encode", "--input", "{}"],
      ["tools", "run", "first_use", "--input", JSON.stringify({ password: PASSWORD })],
      ["tools", "list", "--json"],
    ]) {
      const r = await runCli(args, {
        DATABASE_URL: database.url,
        TAI_LOG: "info",
        TAI_DEMO_SIGNING_KEY: SIGNING_KEY,
        TAI_ADMIN_KEY: ADMIN_KEY,
        TAI_MODULES: env.TAI_MODULES,
        LEAK_FIRST_USE_TOKEN: TOKEN,
      });
      note(`cli ${args.slice(0, 3).join(" ")}`, `${r.stdout}\n${r.stderr}`);
    }

    // graphql-ws: every run's events, persisted ones replayed first.
    const events = collect(
      ws,
      `subscription { runEvents(afterSeq: 0) { type progress { message details } run { ${RUN} } } }`,
    );
    await until("the run events of every run", () => events.data.length >= 2 * ids.length, 20_000);
    note("ws toolsChanged", JSON.stringify(tools.data));
    note("ws runEvents", JSON.stringify([events.data, events.errors]));
    note("ws mutation", JSON.stringify([viaWs.data, viaWs.errors]));
    note("ws agentStream", JSON.stringify([agent.data, agent.errors]));
    tools.stop();
    events.stop();
    await ws.dispose();
    await server.stop();

    // Restart on the same database, and read everything back.
    server = await serve(database.url, env);
    gql = client(server.url);
    await gql(
      `{ runs(first: 100) { edges { node { ${RUN} } } } tools { name label fixedKwargs } recentSpans(first: 50) { attributes status } }`,
    );
    for (const id of ids) await gql(`{ run(id: "${id}") { ${RUN} } }`);
    await gql(`mutation { dispatch(input: { tool: "kv_get", input: { key: "leak" } }) { ${RUN} } }`, {}, reader);
    await gql(`mutation { dispatch(input: { tool: "leak_echo_cache", input: {} }) { ${RUN} } }`);
    const res = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${ADMIN_KEY}`,
      },
      body: JSON.stringify({
        query: `subscription($r: ID!) { runEvents(runId: $r, afterSeq: 0) { type run { ${RUN} } } }`,
        variables: { r: ids[1] },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    note("sse after restart", await res.text().catch((e: Error) => `(ended: ${e.message})`));
    await server.stop();
    dbText = await databaseText(database.url);
  }, 300_000);

  afterAll(async () => {
    await database?.drop();
  });

  it("should have exercised the doors (the search is not vacuous)", () => {
    const all = seen.join("\n");
    expect(all).toContain("[redacted]");
    expect(all).toContain("leak_echo_cache");
    expect(all).toContain("listening on");
    expect(all).toMatch(/"level":"(info|warn|error)"/);
    expect(all).toContain("MessageFinal");
    expect(all).toContain("first_use");
    expect(all).toContain("RUN_PROGRESS");
    expect(dbText).toContain("!ENV EXT_LEAK_ALPHA");
  });

  for (const [name, value] of Object.entries(SECRETS)) {
    it(`should never serve, log or print ${name}`, () => {
      const hits = seen.filter((s) => s.includes(value)).map((s) => s.split("\n")[0]);
      expect(hits).toEqual([]);
    });
    it(`should never store ${name} in the database`, () => {
      expect(dbText.includes(value)).toBe(false);
    });
  }
});
