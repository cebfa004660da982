import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App, z } from "../../src/index.ts";
import { runToEnd, useScript } from "../agent/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// A run that learned a secret from a secret-tier tool hands it to an agent it calls as a tool (issue 30, reviewed).
//
// KNOWN DEFECT, not fixed (it.fails): the inner agent run is started (agent/agent-as-tool.ts) with the input its tool
// body receives, the real one; its stored AgentRun.input, thread and stream are scrubbed of the runtime's secrets
// only, never of what the outer run learned (docs/security-model.md §2 "An agent run's learned secrets stay out of
// every row it causes"). AgentRun.userMessage now serves that stored message in every ADMIN's run list. The fix needs
// the outer run's scope (or its scrubbed storedInput) carried into the inner run's start; remove `.fails` with it.

const RUNS = `{ agentRuns(first: 20) { edges { node { id agent userMessage } } } }`;

describe("a learned secret passed to an agent called as a tool", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let boss: string;

  beforeAll(async () => {
    const app = new App();
    app.tool(
      { name: "vault_read", description: "Reads a secret.", input: z.object({ name: z.string() }), tier: "secret" },
      ({ name }) => ({ secret: `s3cr3t-for-${name}` }),
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    boss = await rt.keys.create("boss", "ADMIN");
  });
  afterAll(() => rt.dispose());

  it.fails(
    "should serve the inner agent run's message without the secret its outer run learned, as the outer run's stream and the inner tool run do",
    async () => {
      useScript(rt.agents, "outer", [
        { toolCalls: [{ toolName: "vault_read", input: { name: "db" } }] },
        {
          toolCalls: [
            { toolName: "tools_agent", input: { userMessage: "keep s3cr3t-for-db safe", llmProvider: "inner" } },
          ],
        },
        { text: "Done." },
      ]);
      useScript(rt.agents, "inner", () => ({ text: "Kept." }));
      const { log } = await runToEnd(
        rt.agents,
        { userMessage: "go", llmProvider: "outer", toolNames: ["vault_read", "tools_agent"] },
        as("ADMIN"),
      );
      expect(log.at(-1)).toMatchObject({ type: "message_final" });
      expect(JSON.stringify(log)).not.toContain("s3cr3t-for-db");
      const inner = await rt.db.run.findMany({ where: { tool: "tools_agent" } });
      expect(JSON.stringify(inner.map((r) => r.input))).not.toContain("s3cr3t-for-db");

      const list = await gql(RUNS, {}, boss);
      expect(list.errors).toBeUndefined();
      expect(list.data!.agentRuns.edges).toHaveLength(2);
      expect(list.text).not.toContain("s3cr3t-for-db");
    },
  );
});
