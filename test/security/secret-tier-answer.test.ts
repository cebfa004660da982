import { createHmac } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient } from "../graphql/support.ts";
import { connect } from "../mcp/support.ts";

/**
 * Issue 23, finding 8: a `secret`-tier tool's output was "[redacted]" even to the ADMIN who
 * ran it, on every door, so `sign_message` signed nothing anyone could use. Now its caller
 * receives the output once, in the answer to its own request (GraphQL `dispatch`, MCP
 * `tools/call`, `tai tools run`); `run`, `runs`, runEvents frames, the stored row, spans and
 * logs keep "[redacted]".
 */
const SIGNING_KEY = "f23-signing-credential-7c1d";
const signatureOf = (message: string) => createHmac("sha256", SIGNING_KEY).update(message).digest("hex");
const RUN = "id status input data details content { text } errorMessage";

describe("a secret-tier tool's output reaches the caller who ran it, once (issue 23, finding 8)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;
  let admin: string;
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    // The demo tool reads its credential from the process environment.
    process.env.TAI_DEMO_SIGNING_KEY = SIGNING_KEY;
    database = await freshDatabase();
    rt = await testRuntime({ databaseUrl: database.url, traceExporter: exporter });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    admin = await rt.keys.create("signer", "ADMIN");
  });
  afterAll(async () => {
    await server?.stop();
    await rt?.close();
    await database?.drop();
    delete process.env.TAI_DEMO_SIGNING_KEY;
  });

  /**
   * Everything stored, served again and logged about run `id`, as one text (its span too, when this runtime ran it).
   */
  const afterwards = async (id: string, tracedHere = true) => {
    const gql = gqlClient(rt);
    const one = await gql(`query($id: ID!) { run(id: $id) { ${RUN} events { type run { ${RUN} } } } }`, { id }, admin);
    const list = await gql(`{ runs(first: 50) { edges { node { ${RUN} } } } }`, {}, admin);
    expect(one.data!.run).toMatchObject({
      id,
      status: "SUCCEEDED",
      data: "[redacted]",
      content: [{ text: "[redacted]" }],
    });
    const stored = JSON.stringify([
      await rt.db.run.findMany({ where: { id } }),
      await rt.db.runEvent.findMany({ where: { runId: id } }),
    ]);
    expect(stored).toContain("[redacted]");
    const finished = exporter.getFinishedSpans().filter((s) => s.attributes["tai42.run.id"] === id);
    expect(finished.map((s) => s.name)).toEqual(tracedHere ? ["tai42.run sign_message"] : []);
    const spans = JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.status]));
    return [one.text, list.text, stored, spans, rt.logLines.join("\n")].join("\n");
  };

  it("should answer a GraphQL dispatch with the signature while its runEvents frames, run, runs, row, spans and logs keep [redacted]", async () => {
    const ws = wsClient(url, { connectionParams: { authorization: `Bearer ${admin}` } });
    try {
      const listening = rt.bus.listenerCount("runEvent");
      const frames = collect(ws, `subscription { runEvents(tool: "sign_message") { type run { ${RUN} } } }`);
      await until("the subscription to listen on the bus", () => rt.bus.listenerCount("runEvent") > listening);
      const res = await gqlClient(rt)<{
        dispatch: { id: string; data: unknown; content: { text: string }[]; input: unknown };
      }>(
        `mutation { dispatch(input: { tool: "sign_message", input: { message: "pay 10 via graphql" } }) { ${RUN} } }`,
        {},
        admin,
      );
      const signature = signatureOf("pay 10 via graphql");
      expect(res.data!.dispatch).toMatchObject({
        status: "SUCCEEDED",
        input: "[redacted]",
        data: { algorithm: "HMAC-SHA256", signature },
      });
      expect(res.data!.dispatch.content[0].text).toContain(signature);
      await frames.waitForData(2);
      frames.stop();
      expect(JSON.stringify(frames.data)).toContain("[redacted]");
      const elsewhere = [JSON.stringify(frames.data), await afterwards(res.data!.dispatch.id)].join("\n");
      expect(elsewhere).not.toContain(signature);
      expect(elsewhere).not.toContain(SIGNING_KEY);
    } finally {
      await ws.dispose();
    }
  });

  it("should answer an MCP tools/call with the signature, while what is stored and served again keeps [redacted]", async () => {
    const { client } = await connect(url.replace(/\/graphql$/, "/mcp"), { key: admin });
    try {
      const result = (await client.callTool({
        name: "sign_message",
        arguments: { message: "pay 10 via mcp" },
      })) as CallToolResult;
      const signature = signatureOf("pay 10 via mcp");
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ algorithm: "HMAC-SHA256", signature });
      const elsewhere = await afterwards(result._meta!["tai42/runId"] as string);
      expect(elsewhere).not.toContain(signature);
      expect(elsewhere).not.toContain(SIGNING_KEY);
    } finally {
      await client.close();
    }
  });

  it("should print the signature for `tai tools run` while the run it stored keeps [redacted], and a re-issued idempotency key answers the stored record", async () => {
    const env = { DATABASE_URL: database.url, TAI_KEY: admin, TAI_DEMO_SIGNING_KEY: SIGNING_KEY, TAI_LOG: "info" };
    const args = [
      "tools",
      "run",
      "sign_message",
      "--input",
      JSON.stringify({ message: "pay 10 via cli" }),
      "--idempotency-key",
      "cli-sign-1",
    ];
    const first = await runCli(args, env);
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout) as { id: string; data: unknown; input: unknown };
    const signature = signatureOf("pay 10 via cli");
    expect(printed).toMatchObject({
      status: "SUCCEEDED",
      input: "[redacted]",
      data: { algorithm: "HMAC-SHA256", signature },
    });
    expect(first.stderr).not.toContain(signature);
    const again = await runCli(args, env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: printed.id, data: "[redacted]" });
    // The CLI process ran it: its spans (tracing off there) are not this runtime's.
    const elsewhere = await afterwards(printed.id, false);
    expect(elsewhere).not.toContain(signature);
  });
});
