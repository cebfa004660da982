import { z } from "zod";
import { TIERS } from "../auth/roles.ts";
import type { Issue } from "../errors.ts";
import {
  anyJsonSchema,
  fn,
  MAX_TIMER_SECONDS,
  NAME_PATTERN,
  objectJsonSchema,
  wireSafeName,
} from "../validation/common.ts";
import { zodIssues } from "../validation/declaration.ts";

/**
 * The rules a tool declaration is held to, in the order they are reported: a refusal
 * names the first rule broken (docs/tool-authoring.md §1).
 */
export const TOOL_RULES = [
  "one-form",
  "unknown-field",
  "required-field",
  "wire-safe-name",
  "object-schema",
  "schema-compiles",
  "execute-function",
  "field-type",
  "retry-policy",
  "limits",
  "duplicate-name",
] as const;
type ToolRule = (typeof TOOL_RULES)[number];

const isEmptyPlainObject = (v: unknown) =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;
const present = (v: unknown) =>
  v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "") && !isEmptyPlainObject(v);

/** A required field: present and not empty (rule required-field), then `schema`. */
const required = <S extends z.ZodType>(schema: S) =>
  z
    .custom<unknown>(present, { error: "is required and must not be empty", params: { rule: "required-field" } })
    .pipe(schema);

const oneLine = z
  .string({ error: "must be one non-empty line of text" })
  .refine((s) => s.trim() !== "" && !s.includes("\n"), { error: "must be one non-empty line of text" })
  .transform((s) => s.trim());
const GUIDELINES = "must be a list of non-empty strings";
const guideline = z
  .string({ error: GUIDELINES })
  .refine((s) => s.trim() !== "", { error: GUIDELINES })
  .transform((s) => s.trim());
const orDefault = <T>(schema: z.ZodType<T>, fallback: T) => schema.nullish().transform((v): T => v ?? fallback);

/** The fields of a tool declaration (`defineTool`, docs/tool-authoring.md). */
export const ToolFieldsSchema = z
  .strictObject(
    {
      name: required(wireSafeName()),
      label: z.string({ error: "must be a string" }).optional(),
      description: required(z.string({ error: "must be a string" })),
      parameters: required(objectJsonSchema("/parameters")),
      execute: required(fn()),
      tier: orDefault(z.enum(TIERS, { error: `must be one of ${TIERS.join(", ")}` }), "read"),
      executionMode: orDefault(
        z.enum(["parallel", "sequential"], { error: 'must be "parallel" or "sequential"' }),
        "parallel",
      ),
      retry: z.unknown().optional(),
      limits: z.unknown().optional(),
      timeoutSeconds: orDefault(
        z
          .number({ error: "must be a number > 0" })
          .gt(0, { error: "must be a number > 0" })
          .lte(MAX_TIMER_SECONDS, { error: `must be at most ${MAX_TIMER_SECONDS} (a timer cannot wait longer)` }),
        30,
      ),
      outputSchema: anyJsonSchema("/outputSchema").optional(),
      apiTool: z.boolean({ error: "must be a boolean" }).default(true),
      promptSnippet: oneLine.optional(),
      promptGuidelines: z.array(guideline, { error: GUIDELINES }).optional(),
      pauses: z.boolean({ error: "must be a boolean" }).default(false),
      resume: fn().optional(),
    },
    { error: "is not a tool field" },
  )
  .superRefine((t, ctx) => {
    if (t.resume !== undefined && !t.pauses)
      ctx.addIssue({ code: "custom", path: ["resume"], message: "is only meaningful with pauses: true" });
  });

/** The rule a zod issue of {@link ToolFieldsSchema} breaks. */
function ruleOf(issue: z.core.$ZodIssue): ToolRule {
  const tagged = issue.code === "custom" ? (issue.params as { rule?: ToolRule } | undefined)?.rule : undefined;
  if (tagged) return tagged;
  if (issue.code === "unrecognized_keys") return "unknown-field";
  const field = issue.path[0];
  if (field === "name") return "wire-safe-name";
  if (field === "parameters") return "object-schema";
  if (field === "execute") return "execute-function";
  return "field-type";
}

/** Why a tool declaration was refused: the first rule broken, its message, and every issue. */
export function toolRefusal(
  error: z.ZodError,
  raw: Record<string, unknown>,
): { rule: ToolRule; message: string; issues: Issue[] } {
  const ranked = error.issues.map((issue) => ({ issue, rule: ruleOf(issue) }));
  const rule = TOOL_RULES.find((r) => ranked.some((x) => x.rule === r))!;
  const broken = zodIssues(new z.ZodError(ranked.filter((x) => x.rule === rule).map((x) => x.issue)));
  const field = (i: Issue) => i.path.split("/")[1];
  const name = `"${String(raw.name)}": `;
  const message =
    rule === "unknown-field"
      ? `unknown field(s) ${broken.map((i) => `"${field(i)}"`).join(", ")}`
      : rule === "required-field"
        ? broken.map((i) => `"${field(i)}" is required and must not be empty`).join("; ")
        : rule === "wire-safe-name"
          ? `name ${JSON.stringify(raw.name)} must match ${NAME_PATTERN}`
          : name + [...new Set(broken.map((i) => `${field(i)} ${i.message}`))].join("; ");
  return { rule, message, issues: zodIssues(error) };
}
