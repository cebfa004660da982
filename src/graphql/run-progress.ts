import type { RunProgress } from "../tools/tool-update.ts";
import { builder } from "./builder.ts";

/** A RUN_PROGRESS event's update (docs/tool-authoring.md §5). */
export const RunProgressRef = builder.objectRef<RunProgress>("RunProgress").implement({
  description:
    'A partial update a tool body reported while running (ctx.onUpdate); a secret-tier run\'s message and details are "[redacted]".',
  fields: (t) => ({
    message: t.string({
      nullable: true,
      description: "What the tool is doing, in words (at most 1,000 characters).",
      resolve: (p) => p.message,
    }),
    progress: t.float({
      nullable: true,
      description: "How far along (>= 0); out of total when it is given.",
      resolve: (p) => p.progress,
    }),
    total: t.float({
      nullable: true,
      description: "What progress counts towards, when known.",
      resolve: (p) => p.total,
    }),
    details: t.field({
      type: "JSON",
      nullable: true,
      description: "Structured facts for a UI (JSON of at most 8 KiB).",
      resolve: (p) => p.details ?? null,
    }),
    detailsDropped: t.int({
      nullable: true,
      description: "The JSON size in bytes of details that were over the bound and dropped; null: nothing dropped.",
      resolve: (p) => p.detailsDropped,
    }),
  }),
});
