/**
 * An agent whose input has nested objects, a list, an enum and required fields, registered
 * as a user would (`app.agent`), not specRunnable. Its answer is its input, as JSON, then
 * `note` as it was given (markdown or HTML): what the page shows is what was sent, as text.
 */
import { Agent, App, drain, scriptedModel, z, type AgentContext, type AgentRunOptions } from "tai42";
import type { AgentPrepareContext } from "../../../src/agent/agent.ts";
import { ToolsAgent } from "../../../src/agent/tools-agent/tools-agent.ts";

export class EchoAgent extends Agent {
  static override toolName = "echo_input";
  static override toolDescription = "Answers with the input it was given.";
  static override ToolInput = z.object({
    trip: z.object({
      city: z
        .string()
        .min(1)
        .refine((c) => c !== "Atlantis", { message: "is not a city one can travel to" })
        .describe("Where to go."),
      nights: z.number().int().min(1).describe("How many nights."),
    }),
    tags: z.array(z.string()).describe("Labels.").optional(),
    mode: z.enum(["fast", "slow"]).describe("How to travel."),
    note: z.string().describe("Said back as given.").optional(),
  });

  readonly #loop = new ToolsAgent();

  override prepare(options: AgentRunOptions, ctx: AgentPrepareContext): Promise<unknown> {
    const { trip, tags, mode, note } = options as AgentRunOptions & {
      trip: unknown;
      tags?: unknown;
      mode: unknown;
      note?: string;
    };
    const userMessage = `${JSON.stringify({ trip, tags, mode })}\n${note ?? ""}`;
    return this.#loop.prepare({ threadId: options.threadId, llmProvider: "echo", userMessage, toolNames: [] }, ctx);
  }

  override astream(options: AgentRunOptions, ctx: AgentContext) {
    return this.#loop.astream(options, ctx);
  }

  override run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }
}

/** The echo agent kept to writers: its own surface entry is write-tier. */
export class WriterEchoAgent extends EchoAgent {
  static override toolName = "writer_echo";
  static override toolDescription = "Answers with its input, for writers only.";
  static override tier = "write" as const;
}

/** An app with the echo agents and their model (the answer is the user message). */
export function echoApp(): App {
  const app = new App();
  app.llmProvider("echo", scriptedModel({ turns: ({ userMessage }) => ({ text: userMessage }) }));
  app.agent(EchoAgent);
  app.agent(WriterEchoAgent);
  return app;
}
