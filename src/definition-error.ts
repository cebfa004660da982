import type { Issue } from "./errors.ts";

/** Options of a {@link DefinitionError}. */
export interface DefinitionErrorOptions {
  /** What was declared: a tool or agent name, an environment variable, a provider. */
  subject?: string;
  /** Every problem found, as `{path, message}` (JSON-pointer paths, see `Issue`). */
  issues?: Issue[];
  cause?: unknown;
}

/**
 * The one refusal of a declaration: a tool, extension, agent class, plugin, retry policy,
 * provider setting, module or configuration value that breaks a rule. `rule` names the
 * rule as `<declaration>.<rule>` (e.g. `tool.wire-safe-name`, `retry.policy`,
 * `config.env`) and stays stable; `issues` lists every problem found; the message names
 * what was wrong (docs/tool-authoring.md, docs/api-changes.md §12).
 */
export class DefinitionError extends Error {
  readonly rule: string;
  readonly issues: Issue[];
  readonly subject: string | undefined;

  constructor(rule: string, message: string, options: DefinitionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DefinitionError";
    this.rule = rule;
    this.subject = options.subject;
    this.issues = options.issues ?? [{ path: "", message }];
  }
}

/** Whether `error` is a refusal of the given rule (or, with a trailing ".", of any rule of that declaration). */
export function isDefinitionError(error: unknown, rule?: string): error is DefinitionError {
  if (!(error instanceof DefinitionError)) return false;
  if (rule === undefined) return true;
  return rule.endsWith(".") ? error.rule.startsWith(rule) : error.rule === rule;
}
