import { z } from "zod";
import { DefinitionError } from "../../definition-error.ts";
import type { Issue } from "../../errors.ts";
import { zodIssues } from "../../validation/declaration.ts";

/** The rule a malformed script breaks (a {@link DefinitionError} of this rule names every problem). */
export const SCRIPT_RULE = "provider.script";

/** One tool call of a scripted turn. */
export interface ScriptToolCall {
  /** The tool to call: a name the run does not offer gets what a model would, an error result naming it. */
  name: string;
  /** @default {} */
  args?: Record<string, unknown>;
  /** @default "call_<turn>_<index>" */
  id?: string;
}

/** What the model says in one model call: any of reasoning, text and tool calls (several run as one batch). */
export interface ScriptTurn {
  reasoning?: string;
  text?: string;
  toolCalls?: ScriptToolCall[];
  /** Token counts reported for the call. @default estimated from the characters (÷ 4) */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Fail this model call with this message (an upstream HTTP 500): to test how the agent fails. */
  error?: string;
}

const count = z
  .number({ error: "must be a number" })
  .int({ error: "must be an integer" })
  .nonnegative({ error: "must be ≥ 0" });

const TurnSchema = z.strictObject(
  {
    reasoning: z.string({ error: "must be a string" }).optional(),
    text: z.string({ error: "must be a string" }).optional(),
    toolCalls: z
      .array(
        z.strictObject(
          {
            name: z.string({ error: "must be a string (the tool's name)" }).min(1, { error: "must not be empty" }),
            args: z.record(z.string(), z.unknown(), { error: "must be an object of arguments" }).optional(),
            id: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
          },
          { error: "must be an object { name, args?, id? }" },
        ),
        { error: "must be a list of { name, args? }" },
      )
      .optional(),
    usage: z
      .strictObject(
        { inputTokens: count.optional(), outputTokens: count.optional() },
        { error: "must be { inputTokens?, outputTokens? }" },
      )
      .optional(),
    error: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
  },
  { error: "must be an object { reasoning?, text?, toolCalls?, usage?, error? }" },
);

/** The content of a script file (JSON or YAML). */
export const ScriptFileSchema = z.strictObject(
  {
    turns: z.array(TurnSchema, { error: "must be a list of turns" }).min(1, { error: "must hold at least one turn" }),
    chunkDelayMs: count.optional(),
    modelId: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
  },
  { error: "must be an object { turns, chunkDelayMs?, modelId? }" },
);

export type ScriptFile = z.infer<typeof ScriptFileSchema>;

/** The issues of a value that is not a valid turn list; paths start at `base` (e.g. "/turns"). */
export function turnIssues(turns: unknown, base: string): Issue[] {
  const r = z.array(TurnSchema, { error: "must be a list of turns" }).safeParse(turns);
  return r.success ? [] : zodIssues(r.error, base);
}

/** The issues of one turn a script function returned. */
export function oneTurnIssues(turn: unknown): Issue[] {
  const r = TurnSchema.safeParse(turn);
  return r.success ? [] : zodIssues(r.error);
}

/** The issues of a parsed script file's content. */
export function scriptFileIssues(content: unknown): Issue[] {
  const r = ScriptFileSchema.safeParse(content);
  return r.success ? [] : zodIssues(r.error);
}

/** Every issue as `path: message`, joined. */
export function describeIssues(issues: Issue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** A malformed script, refused where it was given; `where` is "scriptedModel" or "script file <path>". */
export function scriptError(where: string, issues: Issue[]): DefinitionError {
  return new DefinitionError(SCRIPT_RULE, `${where}: ${describeIssues(issues)}`, { subject: where, issues });
}
