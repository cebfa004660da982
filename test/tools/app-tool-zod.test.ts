import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { fields, refused } from "./define-tool-fixture.ts";

describe("app.tool: the zod form", () => {
  const input = z.object({
    url: z.string().url().describe("The page to fetch."),
    depth: z.number().int().min(0).optional(),
    mode: z.enum(["fast", "full"]).default("fast"),
  });

  it("should expose the input as draft 2020-12 JSON Schema that refuses unknown properties", () => {
    const app = new App();
    const def = app.tool(
      { name: "fetch_page", description: "Fetch a page and return its title.", input },
      () => "title",
    );
    expect(def.parameters).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        url: { type: "string", format: "uri", description: "The page to fetch." },
        depth: { type: "integer", minimum: 0 },
        mode: { type: "string", enum: ["fast", "full"], default: "fast" },
      },
      required: ["url"],
      additionalProperties: false,
    });
  });

  it("should equal what z.toJSONSchema gives for the input, plus the closed root", () => {
    const app = new App();
    const def = app.tool({ name: "fetch_page", description: "Fetch a page.", input }, () => "title");
    expect(def.parameters).toEqual({
      ...z.toJSONSchema(input, { target: "draft-2020-12", io: "input" }),
      additionalProperties: false,
    });
  });

  it("should keep a root that allows extra properties when the zod schema says so", () => {
    const app = new App();
    const def = app.tool(
      { name: "loose", description: "Loose input.", input: z.looseObject({ a: z.string() }) },
      () => "ok",
    );
    expect(def.parameters.additionalProperties).toEqual({});
  });

  it("should expose the output schema as draft 2020-12 JSON Schema", () => {
    const app = new App();
    const def = app.tool(
      { name: "counted", description: "Counts.", input: z.object({}), output: z.object({ n: z.number() }) },
      () => ({ n: 1 }),
    );
    expect(def.outputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
    });
  });

  it("should parse input with zod, applying defaults", () => {
    const app = new App();
    const def = app.tool({ name: "fetch_page", description: "Fetch a page.", input }, () => "title");
    expect(def.parse!({ url: "https://example.com" })).toEqual({
      ok: true,
      value: { url: "https://example.com", mode: "fast" },
    });
  });

  it("should register the tool and record the module it came from", () => {
    const app = new App();
    app.currentModule = "tools/fetch.ts";
    const def = app.tool({ name: "fetch_page", description: "Fetch a page.", input }, () => "title");
    expect(app.tools.get("fetch_page")).toBe(def);
    expect(def.module).toBe("tools/fetch.ts");
  });

  it("should refuse a duplicate name, naming it and the module that has it, and keep the first", () => {
    const app = new App();
    app.currentModule = "tools/a.ts";
    const first = app.tool({ name: "fetch_page", description: "First.", input }, () => "a");
    app.currentModule = "tools/b.ts";
    const message = refused("duplicate-name", () =>
      app.tool({ name: "fetch_page", description: "Second.", input }, () => "b"),
    );
    expect(message).toContain('"fetch_page"');
    expect(message).toContain("tools/a.ts");
    expect(app.tools.get("fetch_page")).toBe(first);
  });

  it("should refuse a duplicate name between the zod form and a defineTool definition", () => {
    const app = new App();
    app.tool(defineTool(fields()));
    refused("duplicate-name", () =>
      app.tool({ name: "word_count", description: "Again.", input: z.object({}) }, () => 1),
    );
  });

  it("should register what defineTool returned", () => {
    const app = new App();
    const def = app.tool(defineTool(fields()));
    expect(app.tools.get("word_count")).toBe(def);
  });

  it("should refuse an object that defineTool did not build", () => {
    const app = new App();
    refused("one-form", () => app.tool({ ...defineTool(fields()) }));
  });

  it.each([
    ["a JSON Schema", { type: "object" }],
    ["missing", undefined],
  ])("should refuse an input that is %s rather than a zod schema", (_label, bad) => {
    const app = new App();
    const message = refused("object-schema", () =>
      app.tool({ name: "t", description: "d", input: bad as unknown as z.ZodObject }, () => 1),
    );
    expect(message).toContain("zod");
  });

  it("should refuse a zod input whose root is not an object", () => {
    const app = new App();
    refused("object-schema", () =>
      app.tool({ name: "t", description: "d", input: z.string() as unknown as z.ZodObject }, () => 1),
    );
  });

  it("should apply the defineTool rules to the zod form (name, description, unknown option, handler)", () => {
    const app = new App();
    refused("wire-safe-name", () => app.tool({ name: "fetch page", description: "d", input: z.object({}) }, () => 1));
    refused("required-field", () => app.tool({ name: "t", description: "", input: z.object({}) }, () => 1));
    refused("unknown-field", () =>
      app.tool({ name: "t", description: "d", input: z.object({}), retries: 3 } as never, () => 1),
    );
    refused("execute-function", () => app.tool({ name: "t", description: "d", input: z.object({}) }, "nope" as never));
    expect(app.tools.size).toBe(0);
  });

  it("should notify listeners after each registration", () => {
    const app = new App();
    let changes = 0;
    app.onChange(() => changes++);
    app.tool({ name: "a", description: "A.", input: z.object({}) }, () => 1);
    app.retryPolicy("a_monitor", { maxAttempts: 2, idempotent: true });
    expect(changes).toBe(2);
  });
});
