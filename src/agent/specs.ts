import { z } from "zod";

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

/** A sub-agent: a tool of the parent that runs its own tools-agent loop. */
export const SubAgentSpecSchema = z.object({
  name: wireName,
  description: z.string().min(1),
  systemPrompt: z.string().optional(),
  toolNames: z.array(z.string()).optional(),
  presets: z.array(PresetSpecSchema).optional(),
  skills: z.array(z.string()).optional(),
  inlineSkills: z.array(InlineSkillSchema).optional(),
  responseFormat: z.record(z.string(), z.json()).optional(),
});
export type SubAgentSpec = z.infer<typeof SubAgentSpecSchema>;
