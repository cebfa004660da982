import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { apiRefusal } from "../../helpers/refusals.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";

/**
 * What server-everything never sends, from an MCP SDK server of our own (test/fixtures/growing-mcp-server.mjs): a
 * result `_meta`, and a listing whose tool names collide once wire-safe.
 */
const GROWING = resolve("test/fixtures/growing-mcp-server.mjs");
const admin = as("ADMIN");
let rt: TestRuntime;

beforeAll(async () => {
  rt = await testRuntime({ app: new App() });
}, 120_000);
afterAll(async () => {
  await rt?.dispose();
});

describe("an MCP upstream built on the SDK's McpServer", () => {
  it("should keep the upstream result's _meta in the run's details, stored with the run", async () => {
    await rt.connectors.put(admin, {
      name: "meta",
      kind: "mcp",
      settings: { command: process.execPath, args: [GROWING] },
    });
    const run = await rt.dispatcher.run({
      tool: "meta_traced",
      input: { text: "hello" },
      caller: as("READER"),
      door: "runtime",
    });
    const meta = { "example.com/trace": { id: "trace-1", text: "hello" } };
    expect(run).toMatchObject({ status: "SUCCEEDED", content: [{ type: "text", text: "hello" }] });
    expect(run.details).toEqual({ _meta: meta });
    expect((await rt.runs.get(run.id))?.details).toEqual({ _meta: meta });
  });

  it("should refuse a put whose upstream lists two tools mapping to one surface name, naming both, and store nothing", async () => {
    // "a-b" is wire-safe as it is ("-" is kept); "a.b" becomes "a_b", as "a_b" is.
    const e = await apiRefusal(
      rt.connectors.put(admin, {
        name: "clash",
        kind: "mcp",
        settings: { command: process.execPath, args: [GROWING, "a-b", "a.b", "a_b"] },
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([
      { path: "/tools/a_b", message: 'upstream tools "a.b" and "a_b" both map to the surface name "clash_a_b"' },
    ]);
    expect(e.message).toContain('"a.b" and "a_b"');
    expect(await rt.connectors.get(admin, "clash")).toBeNull();
    expect(rt.surface.resolve("clash_a-b")).toBeUndefined();
    expect(rt.connections.health("clash").state).toBe("IDLE");
  });
});
