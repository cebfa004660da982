import type { AgentRunRecord } from "../agent/agent-runs.ts";
import { isRedacted, REDACTED } from "../auth/tiers.ts";
import { AgentRunRef } from "./agent-run.ts";
import { builder } from "./builder.ts";
import type { GraphQLContext } from "./context.ts";

/** How long an AgentRun's userMessage excerpt is at most, in characters (cut at a word boundary). */
export const EXCERPT_CHARS = 160;

/** The start of `text`, cut at the last word boundary within `max` characters, with an ellipsis when cut. */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max + 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut.slice(0, max)).trimEnd()}…`;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v : null);

/**
 * Whether the run's input is a secret-tier payload: its agent's own tier is `secret` (docs/security-model.md §3: a
 * secret-tier input is never served, its ToolRun's input reads "[redacted]"), or its agent is no longer registered
 * (its tier unknown: the most restrictive, as run visibility treats an unknown tier).
 */
function secretInput(r: AgentRunRecord, ctx: GraphQLContext): boolean {
  const cls = ctx.runtime.agents.classes().get(r.agent);
  return !cls || isRedacted(cls.tier);
}

/**
 * What tells one agent run from another in a list (issue 30): the message it started with, the tools it was given,
 * its provider and model, who started it, and the paused run it resumed. All read from the run's stored input
 * (scrubbed of known secrets when stored; the value fields are scrubbed again when served).
 */
builder.objectFields(AgentRunRef, (t) => ({
  userMessage: t.string({
    nullable: true,
    description: `The user message the run started with, its first ${EXCERPT_CHARS} characters at most (cut at a word boundary, … when cut); "[redacted]" for a secret-tier agent's run (or an agent no longer registered); null when it was given none (a resume, an agent without one).`,
    resolve: (r, _args, ctx) => {
      const text = str(r.input.userMessage);
      if (text === null) return null;
      // Scrubbed whole before it is cut: a secret the cut splits would leave its first part unmatched.
      return secretInput(r, ctx) ? REDACTED : excerpt(ctx.runtime.secrets.scrub(text));
    },
  }),
  toolNames: t.stringList({
    nullable: true,
    description:
      "The registered names the run was given to call (its toolNames); null when it was given none, or for a secret-tier agent's run (its input is not served).",
    resolve: (r, _args, ctx) =>
      Array.isArray(r.input.toolNames) && !secretInput(r, ctx)
        ? r.input.toolNames.filter((n): n is string => typeof n === "string")
        : null,
  }),
  llmProvider: t.string({
    nullable: true,
    description:
      "The provider the run asked for; null: the configured default (or a secret-tier agent's run: its input is not served).",
    resolve: (r, _args, ctx) => (secretInput(r, ctx) ? null : str(r.input.llmProvider)),
  }),
  model: t.string({
    nullable: true,
    description:
      "The model the run asked for (its llmKwargs.model); null: the provider's default (or a secret-tier agent's run: its input is not served).",
    resolve: (r, _args, ctx) =>
      secretInput(r, ctx) ? null : str((r.input.llmKwargs as { model?: unknown } | undefined)?.model),
  }),
  callerKey: t.string({
    nullable: true,
    description: "The name of the API key that started the run; null for an anonymous caller.",
    resolve: (r) => r.callerKey,
  }),
  resumeOf: t.id({
    nullable: true,
    description:
      "The paused run this run resumed (its resumeCheckpointId with resume: the decisions or answers it carried out); null for any other run.",
    resolve: (r) =>
      r.input.resume !== undefined && typeof r.input.resumeCheckpointId === "string"
        ? r.input.resumeCheckpointId
        : null,
  }),
}));
