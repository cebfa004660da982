/**
 * A second agent, registered as a user would (`app.agent`): its own input (a city and a
 * number of nights), not specRunnable. It stores the trip with kv_put behind an approval
 * gate (interruptOn), so a run stops for a decision, and answers once the call ran. Its
 * loop is the tools agent's, driven with options of its own choosing.
 */
import { Agent, App, drain, z, type AgentContext, type AgentRunOptions } from "tai42";
import type { AgentPrepareContext, AgentThreadContext } from "../../../src/agent/agent.ts";
import type { ThreadMessageInput } from "../../../src/agent/threads.ts";
import { ToolsAgent } from "../../../src/agent/tools-agent/tools-agent.ts";

export class TripAgent extends Agent {
  static override toolName = "trip_planner";
  static override toolDescription = "Plans a trip: remembers where you go and for how long, once you approve.";
  static override ToolInput = z.object({
    city: z.string().min(1).describe("Where to go."),
    nights: z.number().int().min(1).max(30).describe("How many nights."),
  });

  readonly #loop = new ToolsAgent();

  override prepare(options: AgentRunOptions, ctx: AgentPrepareContext): Promise<unknown> {
    const { threadId, resume, resumeCheckpointId, llmProvider } = options;
    // A resume continues the paused loop; only a new run says what to remember.
    const userMessage = ctx.resuming
      ? undefined
      : `Remember trip is ${String(options.city)} for ${String(options.nights)} nights`;
    return this.#loop.prepare(
      {
        threadId,
        resume,
        resumeCheckpointId,
        llmProvider,
        userMessage,
        toolNames: ["kv_put"],
        interruptOn: { kv_put: true },
      },
      ctx,
    );
  }

  override astream(options: AgentRunOptions, ctx: AgentContext) {
    return this.#loop.astream(options, ctx);
  }

  override run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }

  override appendThreadMessages(
    threadId: string,
    messages: ThreadMessageInput[],
    ctx: AgentThreadContext,
  ): Promise<void> {
    return this.#loop.appendThreadMessages(threadId, messages, ctx);
  }
}

/** An app with the trip agent beside the built-in ones. */
export function tripApp(): App {
  const app = new App();
  app.agent(TripAgent);
  return app;
}
