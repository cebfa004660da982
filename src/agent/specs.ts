import { z } from "zod";
import type { ToolDefinition } from "../tools/definition.ts";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const wireName = z.string().regex(NAME, "must match ^[A-Za-z0-9_-]{1,64}$");

/** A base tool bound to fixed kwargs, resolved into a tool of the run. */
export const PresetSpecSchema = z.object({
  name: wireName,
  description: z.string().min(1),
  baseTool: z.string().min(1),
  fixedKwargs: z.record(z.string(), z.json()),
});
export type PresetSpec = z.infer<typeof PresetSpecSchema>;

/** A named instruction snippet given inline: `{ name, content }`. */
export const InlineSkillSchema = z.object({
  name: z.string().min(1).max(200),
  content: z.string().min(1),
  description: z.string().optional(),
});
export type InlineSkill = z.infer<typeof InlineSkillSchema>;

/** An approval gate: `true`, or the decisions allowed and a label (docs/agent-stream.md §6). */
export const InterruptOnSchema = z.record(
  z.string(),
  z.union([
    z.boolean(),
    z.object({
      allowedDecisions: z
        .array(z.enum(["approve", "edit", "reject"]))
        .min(1)
        .optional(),
      description: z.string().optional(),
    }),
  ]),
);

/**
 * A sub-agent as JSON callers give it (the seed's `DeepSubAgentSpec`, the full field
 * set): a tool of its parent, named `name`, that runs its own tools-agent loop
 * (docs/agent-stream.md §9). `subagents` nest: a sub-agent may have sub-agents.
 */
export const DeepSubAgentSpecSchema = z.object({
  name: wireName,
  description: z.string().min(1),
  systemPrompt: z.string().optional(),
  toolNames: z.array(z.string()).optional(),
  presets: z.array(PresetSpecSchema).optional(),
  skills: z.array(z.string()).optional(),
  inlineSkills: z.array(InlineSkillSchema).optional(),
  responseFormat: z.record(z.string(), z.json()).optional(),
  responseFormatId: z.string().min(1).max(64).optional(),
  strategy: z.string().min(1).optional(),
  interruptOn: InterruptOnSchema.optional(),
  askCaller: z.boolean().optional(),
  recursionLimit: z.number().int().min(1).max(200).optional(),
  llmProvider: z.string().optional(),
  llmKwargs: z.record(z.string(), z.json()).optional(),
  get subagents() {
    return z.array(DeepSubAgentSpecSchema).optional();
  },
});
export type DeepSubAgentSpec = z.infer<typeof DeepSubAgentSpecSchema>;

/**
 * A sub-agent as in-process callers give it (the seed's `SubAgentSpec`): the JSON fields
 * plus live `tools` (`defineTool` definitions, never stored) at any depth.
 */
export type SubAgentSpec = Omit<DeepSubAgentSpec, "subagents"> & {
  /**
   * In-process only: live `defineTool` definitions offered to this sub-agent, run through
   * the dispatch chokepoint as the run's caller (docs/agent-stream.md §9.3). Never stored.
   */
  tools?: ToolDefinition[];
  subagents?: SubAgentSpec[];
};
