import { describe, expect, it } from "vitest";
import { DeepSubAgentSpecSchema, InterruptOnSchema, PresetSpecSchema } from "../../src/agent/specs.ts";
import { ToolsAgentInput } from "../../src/agent/tools-agent/tool-input.ts";

/** The paths zod refuses `value` at, as JSON pointers. */
function refusedAt(
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } },
  value: unknown,
): string[] {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return result.error!.issues.map((i) => `/${i.path.map(String).join("/")}`);
}

describe("the JSON shapes of agent specs", () => {
  it("should take a preset with a wire-safe name, a base tool and JSON kwargs", () => {
    expect(
      PresetSpecSchema.parse({
        name: "search_docs",
        description: "Searches docs.",
        baseTool: "search",
        fixedKwargs: { site: "docs", depth: 2 },
      }),
    ).toMatchObject({
      name: "search_docs",
    });
    expect(
      refusedAt(PresetSpecSchema, { name: "has space", description: "", baseTool: "", fixedKwargs: [] }).sort(),
    ).toEqual(["/baseTool", "/description", "/fixedKwargs", "/name"]);
  });

  it("should take an interruptOn of booleans or gate configs with known decisions", () => {
    expect(
      InterruptOnSchema.parse({
        pay: true,
        read: false,
        email: { allowedDecisions: ["approve", "reject"], description: "Sends mail" },
      }),
    ).toBeTruthy();
    // Neither form of the union fits: the refusal is at the tool's entry.
    expect(refusedAt(InterruptOnSchema, { pay: { allowedDecisions: ["maybe"] } })[0]).toMatch(/^\/pay/);
    expect(refusedAt(InterruptOnSchema, { pay: { allowedDecisions: [] } })[0]).toMatch(/^\/pay/);
    expect(refusedAt(InterruptOnSchema, { pay: "yes" })).toEqual(["/pay"]);
  });

  it("should take sub-agents nested in sub-agents, checking each level", () => {
    const spec = {
      name: "lead",
      description: "Leads.",
      subagents: [{ name: "helper", description: "Helps.", subagents: [{ name: "deep", description: "Deep." }] }],
    };
    expect(DeepSubAgentSpecSchema.parse(spec)).toEqual(spec);
    const bad = {
      name: "lead",
      description: "Leads.",
      subagents: [{ name: "helper", description: "Helps.", subagents: [{ name: "bad name", description: "" }] }],
    };
    expect(refusedAt(DeepSubAgentSpecSchema, bad).sort()).toEqual([
      "/subagents/0/subagents/0/description",
      "/subagents/0/subagents/0/name",
    ]);
  });

  it("should bound a sub-agent's recursion limit and id lengths", () => {
    expect(refusedAt(DeepSubAgentSpecSchema, { name: "a", description: "d", recursionLimit: 0 })).toEqual([
      "/recursionLimit",
    ]);
    expect(refusedAt(DeepSubAgentSpecSchema, { name: "a", description: "d", recursionLimit: 201 })).toEqual([
      "/recursionLimit",
    ]);
    expect(
      refusedAt(DeepSubAgentSpecSchema, { name: "a", description: "d", responseFormatId: "x".repeat(65) }),
    ).toEqual(["/responseFormatId"]);
  });
});

describe("the tools agent's tool input", () => {
  it("should take every field its run honours", () => {
    const input = {
      toolNames: ["echo"],
      presets: [{ name: "p", description: "d", baseTool: "echo", fixedKwargs: {} }],
      subagents: [{ name: "s", description: "d" }],
      systemMessage: "Be brief about {{topic}}.",
      userMessage: "Hi",
      variables: { topic: "bees" },
      responseFormat: { type: "object" },
      interruptOn: { echo: true },
      skills: ["tone"],
      inlineSkills: [{ name: "k", content: "c" }],
      recursionLimit: 5,
      askCaller: false,
      threadId: "t-1",
      resume: { decisions: [] },
      resumeCheckpointId: "run-1",
      llmProvider: "scripted",
      llmKwargs: { temperature: 0 },
      strategy: "tools",
      checkpointProvider: "database",
      storeProvider: "database",
    };
    expect(ToolsAgentInput.parse(input)).toEqual(input);
    expect(ToolsAgentInput.parse({})).toEqual({});
  });

  it("should refuse out-of-range limits, an empty or over-long thread id, and values that are not JSON", () => {
    expect(refusedAt(ToolsAgentInput, { recursionLimit: 1.5 })).toEqual(["/recursionLimit"]);
    expect(refusedAt(ToolsAgentInput, { threadId: "" })).toEqual(["/threadId"]);
    expect(refusedAt(ToolsAgentInput, { threadId: "t".repeat(201) })).toEqual(["/threadId"]);
    expect(refusedAt(ToolsAgentInput, { variables: { when: new Date(0) } })[0]).toMatch(/^\/variables\/when/);
    expect(refusedAt(ToolsAgentInput, { inlineSkills: [{ name: "", content: "" }] }).sort()).toEqual([
      "/inlineSkills/0/content",
      "/inlineSkills/0/name",
    ]);
  });

  it("should describe its fields for the model and the schema readers", () => {
    const described = Object.entries(ToolsAgentInput.shape).filter(([, field]) => field.description);
    expect(described.map(([k]) => k)).toEqual(
      expect.arrayContaining(["toolNames", "userMessage", "recursionLimit", "askCaller", "strategy"]),
    );
  });
});
