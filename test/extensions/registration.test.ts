import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { BranchTool } from "../../src/extensions/extension.ts";

const passThrough = (tool: BranchTool) => ({ ...tool });
const withConfig = (tool: BranchTool, _config: Record<string, unknown>) => ({ ...tool });
const schema = { type: "object", properties: { label: { type: "string" } } };

describe("extension registration", () => {
  it("should register a WRAPPER without settings and one with a settings schema", () => {
    const app = new App();
    expect(
      app.extension({ name: "trace", kind: "WRAPPER", description: "Trace.", create: passThrough }).configSchema,
    ).toBeNull();
    expect(
      app.extension({ name: "tag", kind: "WRAPPER", description: "Tag.", configSchema: schema, create: withConfig })
        .configSchema,
    ).toEqual(schema);
  });

  it("should refuse a factory that takes config but declares no configSchema", () => {
    expect(() => new App().extension({ name: "x", kind: "WRAPPER", description: "X.", create: withConfig })).toThrow(
      /takes config, so it must declare a configSchema/,
    );
  });

  it("should refuse a configSchema whose root is not type object", () => {
    expect(() =>
      new App().extension({
        name: "x",
        kind: "WRAPPER",
        description: "X.",
        configSchema: { type: "string" },
        create: withConfig,
      }),
    ).toThrow(/root type "object"/);
  });

  it("should refuse a configSchema that breaks the draft 2020-12 rules (ajv meta-validation)", () => {
    expect(() =>
      new App().extension({
        name: "x",
        kind: "WRAPPER",
        description: "X.",
        configSchema: { type: "object", properties: { n: { type: "integer", minimum: "zero" } } },
        create: withConfig,
      }),
    ).toThrow(/not a valid draft 2020-12 schema: \/configSchema\/properties\/n\/minimum/);
  });

  it("should refuse a duplicate name, naming where the first came from", () => {
    const app = new App();
    app.extension({ name: "x", kind: "WRAPPER", description: "X.", create: passThrough });
    expect(() => app.extension({ name: "x", kind: "BACKEND", description: "X again.", create: passThrough })).toThrow(
      /already registered \(inline\)/,
    );
  });

  it("should refuse an unknown kind, a name that is not wire-safe and a missing description", () => {
    expect(() =>
      new App().extension({ name: "x", kind: "PLUGIN" as never, description: "X.", create: passThrough }),
    ).toThrow(/kind must be one of WRAPPER, TRANSFORMER, BACKEND/);
    expect(() => new App().extension({ name: "x y", kind: "WRAPPER", description: "X.", create: passThrough })).toThrow(
      /must match/,
    );
    expect(() => new App().extension({ name: "x", kind: "WRAPPER", description: " ", create: passThrough })).toThrow(
      /description is required/,
    );
  });
});
