import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App, z } from "../../src/index.ts";
import { runToEnd, useScript } from "../agent/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// A run that learned a secret from a secret-tier tool hands it to an agent it calls as a tool (issue 30, reviewed).
//
// The inner agent run is started (agent/agent-as-tool.ts) with the real input, which its model is shown; its scope of
// secrets starts under the tool run's, itself under the outer run's (`RunRequest.secrets`, `ToolContext.childSecrets`,
// `StartRequest.secrets`), so its stored AgentRun.input (AgentRun.userMessage in every ADMIN's run list), its thread,
// its events and its own tool runs are scrubbed of what the outer run learned (docs/security-model.md §2 "An agent
// run's learned secrets stay out of every row it causes").

const RUNS = `{ agentRuns(first: 20) { edges { node { id agent userMessage } } } }`;

describe("a learned secret passed to an agent called as a tool", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let boss: string;
  const noted: string[] = [];

  beforeAll(async () => {
    const app = new App();
    app.tool(
      { name: "vault_read", description: "Reads a secret.", input: z.object({ name: z.string() }), tier: "secret" },
      ({ name }) => ({ secret: `s3cr3t-for-${name}` }),
    );
    app.tool(
      { name: "note", description: "Notes a text.", input: z.object({ text: z.string() }) },
      ({ text }) => (noted.push(text), { noted: text }),
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    boss = await rt.keys.create("boss", "ADMIN");
  });
  afterAll(() => rt.dispose());

  it("should keep the secret its outer run learned out of everything the inner agent run stores, streams and serves, while its model and tools get the real message", async () => {
    useScript(rt.agents, "outer", [
      { toolCalls: [{ toolName: "vault_read", input: { name: "db" } }] },
      {
        toolCalls: [
          {
            toolName: "tools_agent",
            input: { userMessage: "keep s3cr3t-for-db safe", llmProvider: "inner", toolNames: ["note"] },
          },
        ],
      },
      { text: "Done." },
    ]);
    const inner = useScript(rt.agents, "inner", [
      { toolCalls: [{ toolName: "note", input: { text: "noting s3cr3t-for-db" } }] },
      { text: "Kept s3cr3t-for-db." },
    ]);
    const { log } = await runToEnd(
      rt.agents,
      { userMessage: "go", llmProvider: "outer", toolNames: ["vault_read", "tools_agent"] },
      as("ADMIN"),
    );
    expect(log.at(-1)).toMatchObject({ type: "message_final" });
    expect(JSON.stringify(log)).not.toContain("s3cr3t-for-db");
    // The inner agent's model and its tool get the real values: only what is stored and served is scrubbed.
    expect(JSON.stringify(inner.seen[0]!.prompt)).toContain("keep s3cr3t-for-db safe");
    expect(noted).toEqual(["noting s3cr3t-for-db"]);

    const runs = await rt.db.agentRun.findMany();
    expect(runs).toHaveLength(2);
    const innerRun = runs.find(
      (r) => r.agent === "tools_agent" && (r.input as { llmProvider?: string }).llmProvider === "inner",
    )!;
    expect(JSON.stringify(innerRun.input)).toContain("[redacted]");
    const stored = {
      runs,
      events: await rt.db.agentEvent.findMany(),
      thread: await rt.db.threadMessage.findMany({ where: { threadId: innerRun.threadId! } }),
      toolRuns: await rt.db.run.findMany(),
    };
    expect(stored.events.filter((e) => e.runId === innerRun.id).length).toBeGreaterThan(0);
    expect(stored.thread.length).toBeGreaterThan(0);
    expect(stored.toolRuns.map((r) => r.tool).sort()).toEqual(["note", "tools_agent", "vault_read"]);
    expect(JSON.stringify(stored)).not.toContain("s3cr3t-for-db");

    const list = await gql(RUNS, {}, boss);
    expect(list.errors).toBeUndefined();
    expect(list.data!.agentRuns.edges).toHaveLength(2);
    expect(list.text).not.toContain("s3cr3t-for-db");
  });

  it("should keep the secret a run learned out of what its sub-agent stores and streams, its model and tools shown the real task", async () => {
    noted.length = 0;
    const model = useScript(rt.agents, "lead", [
      { toolCalls: [{ toolName: "vault_read", input: { name: "db" } }] },
      { toolCalls: [{ toolName: "keeper", input: { task: "keep s3cr3t-for-db safe" } }] },
      { toolCalls: [{ toolName: "note", input: { text: "noting s3cr3t-for-db" } }] },
      { text: "Kept s3cr3t-for-db." },
      { text: "Done." },
    ]);
    const { started, log } = await runToEnd(
      rt.agents,
      {
        userMessage: "go",
        llmProvider: "lead",
        toolNames: ["vault_read"],
        subagents: [{ name: "keeper", description: "Keeps", systemPrompt: "You keep.", toolNames: ["note"] }],
      },
      as("ADMIN"),
    );
    expect(log.at(-1)).toMatchObject({ type: "message_final", text: "Done." });
    expect(JSON.stringify(model.seen[2]!.prompt)).toContain("keep s3cr3t-for-db safe");
    expect(noted).toEqual(["noting s3cr3t-for-db"]);
    const stored = {
      log,
      run: await rt.db.agentRun.findUnique({ where: { id: started.runId } }),
      events: await rt.db.agentEvent.findMany({ where: { runId: started.runId } }),
      thread: await rt.db.threadMessage.findMany({ where: { threadId: started.threadId } }),
      toolRuns: await rt.db.run.findMany({ where: { tool: "note" } }),
    };
    expect(stored.toolRuns.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain("s3cr3t-for-db");
  });
});
