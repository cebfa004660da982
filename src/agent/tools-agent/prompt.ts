import type { Issue } from "../../errors.ts";

/** A skill as the prompt shows it. */
export interface PromptSkill {
  name: string;
  instructions: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\s*\}\}/g;

/**
 * Templated text: every `{{name}}` or `{{a.b}}` is replaced from `vars` (strings as they
 * are, other values as JSON). A placeholder without a value is an issue at `path`, so a
 * run never starts with a half-filled prompt. Text that is not a placeholder is kept.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>, path: string): { text: string; issues: Issue[] } {
  const issues: Issue[] = [];
  const text = template.replace(PLACEHOLDER, (whole, name: string) => {
    let v: unknown = vars;
    for (const part of name.split(".")) v = v !== null && typeof v === "object" && Object.hasOwn(v, part) ? (v as Record<string, unknown>)[part] : undefined;
    if (v === undefined) {
      issues.push({ path, message: `the placeholder {{${name}}} has no value (pass it in variables)` });
      return whole;
    }
    return typeof v === "string" ? v : JSON.stringify(v);
  });
  return { text, issues };
}

export const DEFAULT_SYSTEM = "You are a helpful assistant. Call the tools you are given when they help answer; when you have the answer, reply without calling a tool.";

/** The system prompt of a run: the rendered system message, the skills, the answer format. */
export function composeSystem(system: string | null, skills: PromptSkill[], responseFormat: Record<string, unknown> | null): string {
  const parts = [system ?? DEFAULT_SYSTEM];
  if (skills.length) parts.push(["## Skills", ...skills.map((s) => `### ${s.name}\n${s.instructions.trim()}`)].join("\n\n"));
  if (responseFormat)
    parts.push(`## Answer format\nWhen you give your final answer, reply with only a JSON value (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(responseFormat)}`);
  return parts.join("\n\n");
}
