import { z } from "zod";
import { DeepSubAgentSpecSchema, InlineSkillSchema, InterruptOnSchema, PresetSpecSchema } from "../specs.ts";

/**
 * The tools agent's tool input: exactly the fields its run honours (it is specRunnable,
 * so every field is preset-bakeable). `threadId`, `resume` and `resumeCheckpointId` are
 * accepted too, so a preset or a dispatch can continue a thread.
 */
export const ToolsAgentInput = z.object({
  toolNames: z.array(z.string()).optional().describe("Surface tools, presets, branches or agents the model may call."),
  presets: z.array(PresetSpecSchema).optional().describe("Inline presets: a base tool with baked arguments."),
  subagents: z
    .array(DeepSubAgentSpecSchema)
    .optional()
    .describe("Sub-agents, each a tool of this agent; a sub-agent may have sub-agents."),
  systemMessage: z.string().optional().describe("System prompt; {{name}} is replaced from variables."),
  userMessage: z.string().optional().describe("The user's message; {{name}} is replaced from variables."),
  variables: z.record(z.string(), z.json()).optional().describe("Values for {{name}} placeholders."),
  responseFormat: z.record(z.string(), z.json()).optional().describe("A JSON Schema the final answer must match."),
  interruptOn: InterruptOnSchema.optional().describe("Tools that need an approval decision before they run."),
  skills: z.array(z.string()).optional().describe("Stored skills to load into the system prompt."),
  inlineSkills: z.array(InlineSkillSchema).optional().describe("Skills given inline: { name, content }."),
  recursionLimit: z.number().int().min(1).max(200).optional().describe("Most model calls in one run. Default 25."),
  askCaller: z.boolean().optional().describe("Offer the model the built-in ask_caller tool. Default true."),
  threadId: z.string().min(1).max(200).optional(),
  resume: z.json().optional(),
  resumeCheckpointId: z.string().optional(),
  llmProvider: z.string().optional(),
  llmKwargs: z.record(z.string(), z.json()).optional(),
  strategy: z.string().optional().describe('The loop strategy, by registered name. Default "tools".'),
  checkpointProvider: z
    .string()
    .optional()
    .describe('Where the thread memory is kept, by registered name. Default "database".'),
  storeProvider: z
    .string()
    .optional()
    .describe('Where the long-term store is kept, by registered name. Default "database".'),
});
export type ToolsAgentOptions = z.infer<typeof ToolsAgentInput>;
