import { builder } from "./builder.ts";
import { guardJsonDepth } from "./json-depth.ts";
import { scrubValueFields } from "./scrub-fields.ts";
import "./enums.ts";
import "./auth.ts";
import "./tool.ts";
import "./tool-limits.ts";
import "./tool-retry.ts";
import "./run.ts";
import "./run-operator.ts";
import "./run-list.ts";
import "./run-tree.ts";
import "./preset.ts";
import "./manifest.ts";
import "./interaction.ts";
import "./extension.ts";
import "./agent.ts";
import "./agent-run.ts";
import "./agent-run-summary.ts";
import "./thread.ts";
import "./usage.ts";
import "./skill.ts";
import "./response-format.ts";
import "./connector.ts";
import "./schedule.ts";

/** The executable schema; `npm run schema:print` writes it to schema.graphql. */
export const schema = scrubValueFields(guardJsonDepth(builder.toSchema({ sortSchema: false })));
