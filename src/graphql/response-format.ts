import type { ResponseFormat } from "../agent/response-formats.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const ResponseFormatRef = builder.objectRef<ResponseFormat>("ResponseFormat").implement({
  description:
    "A stored response format a sub-agent names by id (SubAgentSpecInput.responseFormatId): a JSON Schema as templated text.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The id a spec names it by." }),
    description: t.exposeString("description", { description: "What it is for." }),
    template: t.exposeString("template", {
      description:
        "The JSON Schema as text; {{name}} placeholders are filled from the run's variables where it is used.",
    }),
    updatedAt: t.field({ type: "DateTime", description: "When it last changed.", resolve: (f) => f.updatedAt }),
  }),
});

const ResponseFormatInput = builder.inputType("ResponseFormatInput", {
  description: "A response format to store.",
  fields: (t) => ({
    name: t.string({ required: true, description: "The id a spec names it by." }),
    description: t.string({ required: true, description: "What it is for." }),
    template: t.string({
      required: true,
      description: "The JSON Schema as text; a {{name}} placeholder may stand for a value or inside a string.",
    }),
  }),
});

builder.queryFields((t) => ({
  responseFormats: t.field({
    type: [ResponseFormatRef],
    description: "Every stored response format.",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.agents.responseFormats.list();
    },
  }),
}));

builder.mutationFields((t) => ({
  putResponseFormat: t.field({
    type: ResponseFormatRef,
    description: "Creates or replaces a response format. ADMIN only.",
    args: { input: t.arg({ type: ResponseFormatInput, required: true, description: "The response format." }) },
    resolve: (_r, { input }, ctx) => ctx.runtime.agents.responseFormats.put(input, requireCaller(ctx)),
  }),
  deleteResponseFormat: t.field({
    type: "Boolean",
    description: "Deletes a response format (NOT_FOUND when there is none). ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The response format's id." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.agents.responseFormats.delete(name, requireCaller(ctx)),
  }),
}));
