import { unstorableIssues } from "../db/storable.ts";
import type { Issue } from "../errors.ts";
import { prepareInput } from "../registry/entries/prepare-input.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { wireSafeName, NAME_PATTERN } from "../validation/common.ts";
import { writeOnlyStrings } from "../tools/write-only.ts";
import { cronIssues, type ScheduleInput } from "./schedule-record.ts";

/**
 * Every write rule of a schedule (docs/run-lifecycle.md §11.7), as issues naming the field: its name, cron and time
 * zone, its tool (on the surface, not secret-tier) and its input (valid for the tool, storable as a background run's
 * input must be: §11.2).
 */
export function scheduleIssues(
  input: ScheduleInput,
  resolve: (tool: string) => SurfaceEntry | undefined,
  secrets: Secrets,
): Issue[] {
  const issues: Issue[] = [];
  if (!wireSafeName().safeParse(input.name).success)
    issues.push({ path: "/name", message: `must match ${NAME_PATTERN}` });
  issues.push(...cronIssues(input.cron, input.timeZone ?? "UTC"));
  const value = input.input ?? {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return [...issues, { path: "/input", message: "must be an object" }];
  const entry = resolve(input.tool);
  if (!entry || !entry.listed) return [...issues, { path: "/tool", message: `no tool named "${input.tool}"` }];
  if (entry.tier === "secret")
    return [
      ...issues,
      { path: "/tool", message: `"${entry.name}" is secret-tier: a background run stores its input and output` },
    ];
  issues.push(...inputIssues(entry, value, secrets));
  return issues;
}

function inputIssues(entry: SurfaceEntry, value: Record<string, unknown>, secrets: Secrets): Issue[] {
  const under = (list: Issue[]) => list.map((i) => ({ path: `/input${i.path}`, message: i.message }));
  const unstorable = unstorableIssues(value);
  if (unstorable.length) return under(unstorable);
  if (writeOnlyStrings(entry.inputSchema, value).length)
    return [{ path: "/input", message: "holds a declared secret (writeOnly): a background run stores its input" }];
  if (JSON.stringify(secrets.scrub(value)) !== JSON.stringify(value))
    return [{ path: "/input", message: "holds a known secret value: a background run stores its input" }];
  const prepared = prepareInput(entry, value);
  return prepared.ok ? [] : under(prepared.issues);
}
