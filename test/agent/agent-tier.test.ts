import { afterEach, describe, expect, it } from "vitest";
import { Agent, App, drain, z, type AgentContext, type AgentRunOptions } from "../../src/index.ts";
import type { AgentPrepareContext } from "../../src/agent/agent.ts";
import { ToolsAgent } from "../../src/agent/tools-agent/tools-agent.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { runToEnd } from "./support.ts";

/** An agent its author keeps to writers: its own surface entry is write-tier. */
class WriterAgent extends Agent {
  static override toolName = "writer_agent";
  static override toolDescription = "Answers, for writers only.";
  static override tier = "write" as const;
  static override ToolInput = z.object({});
  readonly #loop = new ToolsAgent();
  override prepare(_options: AgentRunOptions, ctx: AgentPrepareContext): Promise<unknown> {
    return this.#loop.prepare({ userMessage: "hello" }, ctx);
  }
  override astream(options: AgentRunOptions, ctx: AgentContext) {
    return this.#loop.astream(options, ctx);
  }
  override run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }
}

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

describe("an agent's own tier at the agent door", () => {
  it("should refuse a role below the agent's tier with FORBIDDEN and store nothing, as the dispatch chokepoint does", async () => {
    const app = new App();
    app.agent(WriterAgent);
    rt = await testRuntime({ app });
    await expect(rt.agents.start({ agent: "writer_agent", options: {}, caller: as("READER") })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: 'role READER may not run write-tier agent "writer_agent"',
    });
    expect(await rt.db.agentRun.count()).toBe(0);

    const { log } = await runToEnd(rt.agents, {}, as("USER"), "writer_agent");
    expect(log.at(-1)).toMatchObject({ type: "message_final" });
  });
});
