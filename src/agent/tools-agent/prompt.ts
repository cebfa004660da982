import type { Issue } from "../../errors.ts";

/** A skill as the prompt shows it. */
export interface PromptSkill {
  name: string;
  instructions: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\s*\}\}/g;

/** The value a `{{a.b}}` placeholder names in `vars` (own properties only); undefined when none. */
export function templateValue(vars: Record<string, unknown>, name: string): unknown {
  let v: unknown = vars;
  for (const part of name.split("."))
    v =
      v !== null && typeof v === "object" && Object.hasOwn(v, part) ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/**
 * Templated text: every `{{name}}` or `{{a.b}}` is replaced from `vars` (strings as they
 * are, other values as JSON). A placeholder without a value is an issue at `path`, so a
 * run never starts with a half-filled prompt. Text that is not a placeholder is kept.
 */
export function renderTemplate(
  template: string,
  vars: Record<string, unknown>,
  path: string,
): { text: string; issues: Issue[] } {
  const issues: Issue[] = [];
  const text = template.replace(PLACEHOLDER, (whole, name: string) => {
    const v = templateValue(vars, name);
    if (v === undefined) {
      issues.push({ path, message: `the placeholder {{${name}}} has no value (pass it in variables)` });
      return whole;
    }
    return typeof v === "string" ? v : JSON.stringify(v);
  });
  return { text, issues };
}

export const DEFAULT_SYSTEM =
  "You are a helpful assistant. Call the tools you are given when they help answer; when you have the answer, reply without calling a tool.";

/** What a tool of a run contributes to its system message (the declaration's `promptSnippet` / `promptGuidelines`). */
export interface PromptTool {
  name: string;
  promptSnippet?: string;
  promptGuidelines?: readonly string[];
}

/**
 * The system prompt of a run: the rendered system message, the tools' snippets and
 * guidelines (docs/tool-authoring.md §1), the skills, the answer format. A tool with no
 * snippet is not listed (the model still gets its description with its schema); a
 * guideline several tools share is given once.
 */
export function composeSystem(
  system: string | null,
  skills: PromptSkill[],
  responseFormat: Record<string, unknown> | null,
  tools: readonly PromptTool[] = [],
): string {
  const parts = [system ?? DEFAULT_SYSTEM];
  const snippets = tools.filter((t) => t.promptSnippet).map((t) => `- ${t.name}: ${t.promptSnippet}`);
  if (snippets.length) parts.push(["## Tools", ...snippets].join("\n"));
  const guidelines = [...new Set(tools.flatMap((t) => t.promptGuidelines ?? []))];
  if (guidelines.length) parts.push(["## Tool guidelines", ...guidelines.map((g) => `- ${g}`)].join("\n"));
  if (skills.length)
    parts.push(["## Skills", ...skills.map((s) => `### ${s.name}\n${s.instructions.trim()}`)].join("\n\n"));
  if (responseFormat)
    parts.push(
      `## Answer format\nWhen you give your final answer, reply with only a JSON value (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(responseFormat)}`,
    );
  return parts.join("\n\n");
}
