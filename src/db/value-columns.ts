import type { Scrubber } from "../secrets/secrets.ts";
import { scrubAgentEntry, scrubRunEvent } from "../secrets/value-fields.ts";
import type { RunEventRecord } from "../dispatch/run-record.ts";

type Scrub = Pick<Scrubber, "scrub">;
type ColumnScrub = (s: Scrub, value: unknown) => unknown;

const whole: ColumnScrub = (s, v) => s.scrub(v);

/**
 * Per Prisma model (prisma/sqlite/schema.prisma), the columns that hold *values*
 * (docs/security-model.md §3 "Which fields are values"), each with how it is scrubbed on
 * every write: the rest of each model's columns (ids, keys, names, statuses, roles,
 * kinds, hashes, counts, flags, times) are structure and are never rewritten. A model
 * with no value column maps to `{}`. `test/storage/value-columns.test.ts` fails when a
 * model of the schema has no entry here, or a JSON or free-text column is in neither this
 * map nor {@link STRUCTURE_COLUMNS}.
 */
export const VALUE_COLUMNS: Readonly<Record<string, Readonly<Record<string, ColumnScrub>>>> = {
  Run: { input: whole, content: whole, data: whole, details: whole, errorMessage: whole },
  Attempt: { errorMessage: whole },
  // A snapshot is a run record: only its value fields (and a progress payload).
  RunEvent: {
    snapshot: (s, v) => (v && typeof v === "object" && "run" in v ? scrubRunEvent(s, v as RunEventRecord) : s.scrub(v)),
  },
  ApiKey: {},
  Instance: {},
  // A key a tool chose may hold a value it was given (a session token): scrubbed like the value.
  KvEntry: { key: whole, value: whole },
  Preset: { description: whole, fixedKwargs: whole },
  Manifest: { description: whole },
  ManifestVersion: { description: whole },
  Span: { attributes: whole },
  Interaction: { question: whole, answer: whole, state: whole },
  CacheEntry: { key: whole, value: whole },
  Thread: {},
  ThreadMessage: { content: whole, data: whole },
  AgentStoreItem: { namespace: whole, key: whole, value: whole },
  AgentRun: { input: whole, final: (s, v) => scrubAgentEntry(s, v), checkpoint: whole },
  AgentEvent: { payload: (s, v) => scrubAgentEntry(s, v) },
  Skill: { description: whole, instructions: whole },
  ResponseFormat: { description: whole, template: whole },
  SurfaceVersion: {},
  // An upstream's listing (its descriptions and schemas) and a refresh's failure are what a third party sent.
  Connector: { description: whole, listing: whole, refreshError: whole },
  ConnectorChange: { diff: whole },
  // The ADMIN's stored input for each tick: background runs store their input as it is (run-lifecycle §11.2).
  Schedule: { input: whole },
};

/**
 * JSON and free-text columns that are nevertheless structure: a retry policy (kinds and
 * numbers), a manifest's document (the ADMIN's configuration: tool names and `!ENV`
 * markers, never resolved values), a question's recipient.
 */
export const STRUCTURE_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  Run: ["policy"],
  // The JSON Schema an answer must match: the tool's declaration, read back to validate answers.
  Interaction: ["answerFormat"],
  Preset: ["retryPolicy", "limits"],
  // A key's own rate (numbers and a scope word), and its scope (tool or manifest names), as the ADMIN wrote them.
  ApiKey: ["rate", "scope"],
  Manifest: ["document"],
  ManifestVersion: ["document"],
  // The ADMIN's connector configuration: settings hold `!ENV` markers for every sealed value, never a resolved one.
  Connector: ["settings", "tools"],
};

/** One row's write data with its value columns scrubbed; a model this map does not know is scrubbed whole. */
export function scrubRow(s: Scrub, model: string | undefined, data: unknown): unknown {
  const columns = model === undefined ? undefined : VALUE_COLUMNS[model];
  if (!columns) return s.scrub(data);
  if (Array.isArray(data)) return data.map((row) => scrubRow(s, model, row));
  if (!data || typeof data !== "object") return data;
  let out: Record<string, unknown> | null = null;
  for (const [column, scrub] of Object.entries(columns)) {
    const v = (data as Record<string, unknown>)[column];
    if (v === undefined || v === null) continue;
    const clean = scrub(s, v);
    if (clean !== v) (out ??= { ...(data as Record<string, unknown>) })[column] = clean;
  }
  return out ?? data;
}
