import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { runToEnd, useScript } from "./support.ts";

function snippetApp(): App {
  const app = new App();
  app.tool(
    {
      name: "grep",
      description: "Search file contents.",
      input: z.object({ pattern: z.string() }),
      promptSnippet: "Search file contents by regex",
      promptGuidelines: ["Prefer grep over reading whole files.", "Quote patterns exactly."],
    },
    () => "",
  );
  app.tool(
    {
      name: "read",
      description: "Read a file.",
      input: z.object({ path: z.string() }),
      promptSnippet: "Read a file",
      promptGuidelines: ["Prefer grep over reading whole files."],
    },
    () => "",
  );
  app.tool({ name: "plain", description: "No prompt text.", input: z.object({}) }, () => "");
  app.extension({ name: "trace", kind: "WRAPPER", description: "Trace.", create: (tool) => ({ ...tool }) });
  app.extension({
    name: "terse",
    kind: "WRAPPER",
    description: "Rewrites the snippet.",
    create: (tool) => ({ ...tool, promptSnippet: `${tool.promptSnippet} (terse)`, promptGuidelines: [] }),
  });
  return app;
}

describe("ToolDefinition.prompt_snippet and prompt_guidelines in the tools agent's system message", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should list each run tool's prompt_snippet under '## Tools' and its prompt_guidelines once each under '## Tool guidelines'", async () => {
    rt = await testRuntime({ app: snippetApp(), config: { demo: false } });
    const model = useScript(rt.agents, "s", [{ text: "done" }]);
    await runToEnd(rt.agents, {
      systemMessage: "You are a code helper.",
      userMessage: "find TODOs",
      toolNames: ["grep", "read", "plain"],
      llmProvider: "s",
    });
    expect(model.seen[0].prompt[0]).toEqual({
      role: "system",
      content: [
        "You are a code helper.",
        "## Tools\n- grep: Search file contents by regex\n- read: Read a file",
        "## Tool guidelines\n- Prefer grep over reading whole files.\n- Quote patterns exactly.",
      ].join("\n\n"),
    });
  });

  it("should leave the system message as it was when no tool of the run declares either", async () => {
    rt = await testRuntime({ app: snippetApp(), config: { demo: false } });
    const model = useScript(rt.agents, "s", [{ text: "done" }]);
    await runToEnd(rt.agents, { systemMessage: "Plain.", userMessage: "hi", toolNames: ["plain"], llmProvider: "s" });
    expect(model.seen[0].prompt[0]).toEqual({ role: "system", content: "Plain." });
  });

  it("should give a sub-agent's system message the snippets and guidelines of its own tools only", async () => {
    rt = await testRuntime({ app: snippetApp(), config: { demo: false } });
    const model = useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "reader", input: { task: "read the notes" } }] },
      { text: "notes read" },
      { text: "done" },
    ]);
    await runToEnd(rt.agents, {
      userMessage: "go",
      toolNames: ["grep"],
      subagents: [{ name: "reader", description: "Reads files.", toolNames: ["read", "plain"] }],
      llmProvider: "s",
    });
    const sub = model.seen[1].prompt[0] as { role: string; content: string };
    expect(sub.content).toContain("## Tools\n- read: Read a file");
    expect(sub.content).toContain("## Tool guidelines\n- Prefer grep over reading whole files.");
    expect(sub.content).not.toContain("- grep:");
    expect(sub.content).not.toContain("Quote patterns exactly.");
  });

  it("should serve promptSnippet and promptGuidelines on GraphQL Tool, a branch keeping its base's or what its extension made of them", async () => {
    rt = await testRuntime({ app: snippetApp(), config: { demo: false } });
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const put = await gql(
      `mutation($d: JSONObject!) { putManifest(input: { name: "m", document: $d }) { name } }`,
      { d: { extensions: { grep: [["trace"], ["terse"]] } } },
      admin,
    );
    expect(put.errors).toBeUndefined();
    await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin);
    const one = async (name: string) =>
      (await gql(`query($n: String!) { tool(name: $n) { promptSnippet promptGuidelines } }`, { n: name }, admin)).data!
        .tool;
    expect(await one("grep")).toEqual({
      promptSnippet: "Search file contents by regex",
      promptGuidelines: ["Prefer grep over reading whole files.", "Quote patterns exactly."],
    });
    expect(await one("plain")).toEqual({ promptSnippet: null, promptGuidelines: [] });
    expect(await one("grep_trace")).toEqual({
      promptSnippet: "Search file contents by regex",
      promptGuidelines: ["Prefer grep over reading whole files.", "Quote patterns exactly."],
    });
    expect(await one("grep_terse")).toEqual({
      promptSnippet: "Search file contents by regex (terse)",
      promptGuidelines: [],
    });
  });
});
