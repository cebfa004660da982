import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentClass } from "../../src/agent/agent.ts";
import { App } from "../../src/app.ts";
import { isDefinitionError } from "../../src/definition-error.ts";
import { ToolError } from "../../src/errors.ts";
import { defineExtension } from "../../src/extensions/extension.ts";
import type { Preset } from "../../src/presets/preset.ts";
import { agentEntry } from "../../src/agent/agent-entry.ts";
import { BIND_RULE, bindCombo } from "../../src/registry/entries/branch-entry.ts";
import { prepareInput, preparedForBase } from "../../src/registry/entries/prepare-input.ts";
import { bakedOverrides, bakeInput, derivePresetSchema, presetEntry } from "../../src/registry/entries/preset-entry.ts";
import { entryForTool } from "../../src/registry/entries/tool-entry.ts";
import type { SurfaceEntry } from "../../src/registry/surface-entry.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import type { ToolContext } from "../../src/tools/definition.ts";

/** What the bodies below need of a context: nothing (they return what they are given). */
const ctx = {} as ToolContext;

/** `calculate` registered from zod, as tool modules write it: its schema is JSON, its prepare parses with zod. */
function calculate(): SurfaceEntry {
  const app = new App();
  app.tool(
    {
      name: "calculate",
      description: "Arithmetic.",
      input: z.object({
        op: z.enum(["add", "multiply"]),
        a: z.number(),
        b: z.number().refine((b) => b !== 13, "unlucky"),
      }),
      retry: { maxAttempts: 2, idempotent: true },
    },
    ({ op, a, b }) => (op === "add" ? a + b : a * b),
  );
  return entryForTool(app.tools.get("calculate")!);
}

const preset = (name: string, baseTool: string, fixedKwargs: Record<string, unknown>): Preset => ({
  name,
  description: `${name}.`,
  baseTool,
  fixedKwargs,
  retryPolicy: null,
  limits: null,
  version: 1,
  createdAt: "",
  updatedAt: "",
});

describe("the one validate-then-prepare", () => {
  it("should hand the body the prepared value of an input its schema and prepare accept", () => {
    expect(prepareInput(calculate(), { op: "add", a: 1, b: 2 })).toEqual({
      ok: true,
      value: { op: "add", a: 1, b: 2 },
    });
  });

  it("should refuse at the schema first, naming each issue's path, without preparing", () => {
    const refused = prepareInput(calculate(), { op: "divide", a: 1 });
    expect(refused).toMatchObject({ ok: false, refusedBy: "schema" });
    expect((refused as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(["/b", "/op"]);
  });

  it("should refuse what the schema accepts but the entry's prepare does not (a zod refinement)", () => {
    expect(prepareInput(calculate(), { op: "add", a: 1, b: 13 })).toEqual({
      ok: false,
      refusedBy: "prepare",
      issues: [{ path: "/b", message: "unlucky" }],
    });
  });

  it("should throw a layer's refusal as a non-retryable INVALID_INPUT ToolError worded by the layer", () => {
    const e = (() => {
      try {
        preparedForBase(calculate(), { op: "add", a: 1, b: 13 }, (r) => `refused by ${r.refusedBy}`);
      } catch (err) {
        return err as ToolError;
      }
    })();
    expect(e).toBeInstanceOf(ToolError);
    expect([e!.message, e!.kind, e!.retryable]).toEqual(["refused by prepare", "INVALID_INPUT", false]);
  });
});

describe("the tool entry", () => {
  it("should describe a registered tool as itself: origin TOOL, its own name in its policy chain, listed unless curated", () => {
    const entry = calculate();
    expect(entry).toMatchObject({
      name: "calculate",
      origin: "TOOL",
      tier: "read",
      policyChain: ["calculate"],
      listed: true,
      extensionStack: [],
      module: "inline",
    });
    expect(entry.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["op", "a", "b"],
    });
  });
});

describe("the preset entry", () => {
  const secrets = () => new Secrets({ env: { OP: "multiply" } });

  it("should offer the base's schema without the baked keys, and inherit the base's chain after its own name", () => {
    const base = calculate();
    const double = presetEntry(preset("double", "calculate", { op: "multiply", b: 2 }), base, secrets());
    expect(double).toMatchObject({
      origin: "PRESET",
      baseTool: "calculate",
      bakedKeys: ["op", "b"],
      policyChain: ["double", "calculate"],
      tier: "read",
      module: "preset",
    });
    expect(double.inputSchema).toMatchObject({ properties: { a: { type: "number" } }, required: ["a"] });
    const quadruple = presetEntry(preset("quadruple", "double", {}), double, secrets());
    expect([quadruple.bakedKeys, quadruple.policyChain]).toEqual([
      ["op", "b"],
      ["quadruple", "double", "calculate"],
    ]);
  });

  it("should derive a schema without touching the base's", () => {
    const base = { type: "object", properties: { a: {}, b: {} }, required: ["a", "b"] };
    expect(derivePresetSchema(base, ["b"])).toEqual({ type: "object", properties: { a: {} }, required: ["a"] });
    expect(base.required).toEqual(["a", "b"]);
  });

  it("should bake a caller's input by the preset's rules: a baked key refused at its path, else the constants merged in", () => {
    expect(bakeInput({ a: 1 }, { op: "add", b: 2 }, "is baked")).toEqual({
      ok: true,
      value: { a: 1, op: "add", b: 2 },
    });
    expect(bakeInput({ a: 1, b: 3 }, { op: "add", b: 2 }, "is baked")).toEqual({
      ok: false,
      issues: [{ path: "/b", message: "is baked" }],
    });
    expect(bakedOverrides({ a: 1, op: "x" }, ["op", "b"], "is baked by an ancestor")).toEqual([
      { path: "/op", message: "is baked by an ancestor" },
    ]);
  });

  it("should run the base's body with the baked constants merged in, resolving !ENV markers only then", async () => {
    const entry = presetEntry(preset("double", "calculate", { op: "!ENV OP", b: 2 }), calculate(), secrets());
    expect(await entry.invoke({ a: 21 }, ctx)).toBe(42);
  });

  it("should refuse a baked input the base does not accept, naming the preset and the step", async () => {
    const base = calculate();
    await expect(
      presetEntry(preset("bad", "calculate", { op: "divide", b: 2 }), base, secrets()).invoke({ a: 1 }, ctx),
    ).rejects.toMatchObject({
      kind: "INVALID_INPUT",
      message: expect.stringMatching(/^preset "bad": the baked input does not fit "calculate": .*\/op/),
    });
    await expect(
      presetEntry(preset("unlucky", "calculate", { op: "add", b: 13 }), base, secrets()).invoke({ a: 1 }, ctx),
    ).rejects.toMatchObject({
      kind: "INVALID_INPUT",
      message: 'preset "unlucky": /b: unlucky',
    });
  });
});

describe("the branch entry", () => {
  const shout = defineExtension(
    {
      name: "shout",
      kind: "WRAPPER",
      description: "Upper-cases results.",
      create: (tool) => ({ ...tool, run: async (input, c) => String(await tool.run(input, c)).toUpperCase() }),
    },
    "test",
  );
  const catalog = (name: string) => (name === "shout" ? shout : undefined);

  it("should bind a combo over its base as <tool>_<ext>, with only its own name in its policy chain", async () => {
    const app = new App();
    app.tool({ name: "word", description: "Echoes a word.", input: z.object({ w: z.string() }) }, ({ w }) => w);
    const branch = bindCombo(entryForTool(app.tools.get("word")!), ["shout"], catalog, new Secrets());
    expect(branch).toMatchObject({
      name: "word_shout",
      origin: "BRANCH",
      baseTool: "word",
      extensionStack: ["shout"],
      policyChain: ["word_shout"],
      module: "branch",
    });
    expect(await branch.invoke({ w: "hey" }, ctx)).toBe("HEY");
  });

  it("should validate and prepare the input for its base before the base's body runs", async () => {
    const branch = bindCombo(calculate(), ["shout"], catalog, new Secrets());
    await expect(branch.invoke({ op: "add", a: 1, b: 13 }, ctx)).rejects.toMatchObject({
      kind: "INVALID_INPUT",
      message: 'invalid input for "calculate": /b: unlucky',
    });
  });

  it("should refuse an extension the catalog does not have, naming extension and tool", () => {
    let refused: unknown;
    try {
      bindCombo(calculate(), ["shout", "nope"], catalog, new Secrets());
    } catch (e) {
      refused = e;
    }
    expect(isDefinitionError(refused, BIND_RULE)).toBe(true);
    expect(refused).toMatchObject({
      subject: 'extension "nope" on tool "calculate"',
      issues: [{ path: "/1", message: expect.stringContaining("no such extension is loaded") }],
    });
    expect(() => bindCombo(calculate(), ["nope"], catalog, new Secrets())).toThrow(
      'extension "nope" on tool "calculate": no such extension is loaded',
    );
  });
});

describe("the agent entry", () => {
  class Summarise extends Agent {
    static override toolName = "summarise";
    static override toolDescription = "Summarises a text.";
    static override ToolInput = z.object({ text: z.string(), words: z.number().default(10) });
    static override presetBakeableFields = ["words"];
    override async run() {
      return "summary";
    }
  }

  it("should put an agent on the surface as origin AGENT, its ToolInput as schema and its bakeable fields", async () => {
    const seen: unknown[] = [];
    const entry = agentEntry(Summarise as AgentClass, async (cls, input) => seen.push([cls.toolName, input]));
    expect(entry).toMatchObject({
      name: "summarise",
      origin: "AGENT",
      bakeableFields: ["words"],
      policyChain: ["summarise"],
      module: "agent",
    });
    expect(entry.inputSchema).toMatchObject({ properties: { text: { type: "string" } }, additionalProperties: false });
    const prepared = prepareInput(entry, { text: "long" });
    expect(prepared).toEqual({ ok: true, value: { text: "long", words: 10 } });
    await entry.invoke((prepared as { value: unknown }).value, ctx);
    expect(seen).toEqual([["summarise", { text: "long", words: 10 }]]);
  });
});
