import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";

const fake = fakeKinds("fake");
let rt: TestRuntime;

beforeAll(async () => {
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  rt = await testRuntime({ app });
}, 120_000);
afterAll(async () => rt?.dispose());

const tool = (name: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>) => ({
  name,
  description: name,
  inputSchema,
  ...(outputSchema ? { outputSchema } : {}),
  proposedTier: "read" as const,
});

describe("an upstream tool whose schemas tai42 cannot validate", () => {
  it("is listed under refused with the reason, and never becomes a surface entry that fails every dispatch", async () => {
    fake.upstream("odd").tools = [
      tool("fine", {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { a: { type: "string" } },
      }),
      tool("draft04", { $schema: "http://json-schema.org/draft-04/schema#", type: "object" }),
      tool("scalar", { type: "string" }),
      tool("broken_output", { type: "object" }, { type: "object", properties: { n: { type: "nonsense" } } }),
    ];
    const { connector } = await rt.connectors.put(as("ADMIN"), {
      name: "odd",
      kind: "fake",
      settings: { upstream: "odd" },
    });
    expect(connector.tools.map((t) => t.surfaceName)).toEqual(["odd_fine"]);
    const reasons = Object.fromEntries(connector.refused.map((r) => [r.name, r.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["broken_output", "draft04", "scalar"]);
    expect(reasons.draft04).toMatch(/^its input schema cannot be used: .*draft-04/);
    expect(reasons.scalar).toBe('its input schema\'s root is not an object schema (type "string")');
    expect(reasons.broken_output).toMatch(/^its output schema cannot be used/);
    expect(rt.surface.resolve("odd_draft04")).toBeUndefined();
    const run = await rt.dispatcher.run({ tool: "odd_fine", input: { a: "x" }, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
  });
});
