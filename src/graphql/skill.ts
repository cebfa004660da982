import type { Skill } from "../agent/skills.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const SkillRef = builder.objectRef<Skill>("Skill").implement({
  description: "A stored, named instruction snippet an agent run loads by name (AgentRunInput.skills).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The name a run loads it by." }),
    description: t.exposeString("description", { description: "What it is for." }),
    instructions: t.exposeString("instructions", { description: "The text added to the agent's instructions." }),
    updatedAt: t.field({ type: "DateTime", description: "When it last changed.", resolve: (s) => s.updatedAt }),
  }),
});

const SkillInput = builder.inputType("SkillInput", {
  description: "A skill to store.",
  fields: (t) => ({
    name: t.string({ required: true, description: "The name a run loads it by." }),
    description: t.string({ required: true, description: "What it is for." }),
    instructions: t.string({ required: true, description: "The text added to the agent's instructions." }),
  }),
});

builder.queryFields((t) => ({
  skills: t.field({
    type: [SkillRef],
    description: "Every stored skill.",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.agents.skills.list();
    },
  }),
}));

builder.mutationFields((t) => ({
  putSkill: t.field({
    type: SkillRef,
    description: "Creates or replaces a skill. ADMIN only.",
    args: { input: t.arg({ type: SkillInput, required: true, description: "The skill." }) },
    resolve: (_r, { input }, ctx) => ctx.runtime.agents.skills.put(input, requireCaller(ctx)),
  }),
  deleteSkill: t.field({
    type: "Boolean",
    description: "Deletes a skill (NOT_FOUND when there is none). ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The skill's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.agents.skills.delete(name, requireCaller(ctx)),
  }),
}));
