import type { Db } from "../db/client.ts";
import { ApiError, describeIssues, type Issue } from "../errors.ts";
import { selects, type NameSelection } from "./name-selection.ts";

/**
 * A key's scope, narrower than its role (docs/security-model.md §1, "Key expiry, last use and scope"): a list of tool
 * names, or the name of a manifest whose `tools` selection it takes. Absent: the role's whole reach.
 */
export type KeyScope = { tools: string[] } | { manifest: string };

/**
 * The scope a caller carries, as read when its key was verified: the stored scope and, for a manifest scope, that
 * manifest's selection then (null: the manifest is gone, and the key may run nothing). Plain data: it travels with the
 * caller to every door and into every run it starts.
 */
export interface CallerScope {
  declared: KeyScope;
  selection?: NameSelection | null;
}

const MAX_TOOLS = 1000;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** What is wrong with a scope as written (shape only; the manifest's existence is checked by {@link checkedScope}). */
export function scopeIssues(scope: unknown): Issue[] {
  if (typeof scope !== "object" || scope === null || Array.isArray(scope))
    return [{ path: "/scope", message: "must be { tools: [names] } or { manifest: name }" }];
  const keys = Object.keys(scope);
  if (keys.length !== 1 || (keys[0] !== "tools" && keys[0] !== "manifest"))
    return [{ path: "/scope", message: "must have exactly one of tools and manifest" }];
  const s = scope as Record<string, unknown>;
  if (keys[0] === "manifest")
    return typeof s.manifest === "string" && NAME.test(s.manifest)
      ? []
      : [{ path: "/scope/manifest", message: "must be a manifest name (^[A-Za-z0-9_.-]{1,64}$)" }];
  const tools = s.tools;
  if (!Array.isArray(tools)) return [{ path: "/scope/tools", message: "must be a list of tool names" }];
  if (!tools.length) return [{ path: "/scope/tools", message: "must name at least one tool" }];
  if (tools.length > MAX_TOOLS) return [{ path: "/scope/tools", message: `must name at most ${MAX_TOOLS} tools` }];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (typeof t !== "string" || !t.trim() || t.length > 200)
      issues.push({ path: `/scope/tools/${i}`, message: "must be a tool name (1 to 200 characters)" });
    else if (seen.has(t)) issues.push({ path: `/scope/tools/${i}`, message: `"${t}" is listed twice` });
    else seen.add(t);
  });
  return issues;
}

/**
 * A scope validated for storing: the shape, and a manifest scope's manifest must exist (BAD_USER_INPUT naming it).
 * Tool names are not checked against the surface: a tool may be registered, or a preset written, after the key.
 */
export async function checkedScope(db: Db, name: string, scope: unknown): Promise<KeyScope> {
  const issues = scopeIssues(scope);
  if (issues.length) throw ApiError.badInput(`invalid scope for key "${name}": ${describeIssues(issues)}`, issues);
  const s = scope as KeyScope;
  if ("manifest" in s && !(await db.manifest.findUnique({ where: { name: s.manifest }, select: { name: true } })))
    throw ApiError.badInput(`invalid scope for key "${name}": no manifest named "${s.manifest}"`, [
      { path: "/scope/manifest", message: `no manifest named "${s.manifest}"` },
    ]);
  return s;
}

/** The caller's scope from a key's stored one, read now (a manifest scope: the manifest's selection as it is now). */
export async function scopeNow(db: Db, stored: unknown): Promise<CallerScope | undefined> {
  if (stored === null || stored === undefined) return undefined;
  const declared = stored as KeyScope;
  if (!("manifest" in declared)) return { declared };
  const row = await db.manifest.findUnique({ where: { name: declared.manifest }, select: { document: true } });
  const doc = row?.document as { tools?: NameSelection } | undefined;
  return { declared, selection: row ? (doc?.tools ?? {}) : null };
}

/** Whether `caller`'s key scope lets it run (or list) `name`; a caller without a scope: always. */
export function inScope(caller: { scope?: CallerScope }, name: string): boolean {
  const scope = caller.scope;
  if (!scope) return true;
  if ("tools" in scope.declared) return scope.declared.tools.includes(name);
  return scope.selection ? selects(scope.selection)(name) : false;
}

/** The refusal of an out-of-scope name, naming the tool, the key and its scope. */
export function outOfScope(caller: { keyName: string | null; scope?: CallerScope }, name: string): string {
  const declared = caller.scope?.declared;
  const what = declared && "manifest" in declared ? `manifest "${declared.manifest}"` : "tool list";
  return `the scope of API key "${caller.keyName}" (its ${what}) excludes tool "${name}"`;
}
