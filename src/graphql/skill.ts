import type { Skill } from "../agent/skills.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const SkillRef = builder.objectRef<Skill>("Skill").implement({
  description: "A stored, named instruction snippet an agent run loads by name (AgentRunInput.skills).",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    instructions: t.exposeString("instructions"),
    updatedAt: t.field({ type: "DateTime", resolve: (s) => s.updatedAt }),
  }),
});

const SkillInput = builder.inputType("SkillInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string({ required: true }),
    instructions: t.string({ required: true }),
  }),
});

builder.queryFields((t) => ({
  skills: t.field({
    type: [SkillRef],
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
    args: { input: t.arg({ type: SkillInput, required: true }) },
    resolve: (_r, { input }, ctx) => ctx.runtime.agents.skills.put(input, requireCaller(ctx)),
  }),
  deleteSkill: t.field({
    type: "Boolean",
    description: "ADMIN only.",
    args: { name: t.arg.string({ required: true }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.agents.skills.delete(name, requireCaller(ctx)),
  }),
}));
