import type { AttemptRecord, RunEventRecord, RunRecord } from "../dispatch/run-record.ts";
import type { ContentBlock } from "../tools/result.ts";
import type { LogJob } from "../runlog/jobs.ts";
import type { RunProgress } from "../tools/tool-update.ts";
import type { Scrubber } from "./secrets.ts";

/**
 * Which fields of each record are *values* (docs/security-model.md §3 "Which fields are
 * values"): only these are scrubbed of known secrets. Everything else — ids, statuses,
 * kinds, doors, roles, tiers, tool and agent names, event types, sequence numbers and
 * times — is structure the server made or the registry names, and is never rewritten,
 * whatever secret is known: a secret equal to "RUNNING" or "echo" must not rewrite a
 * status or a tool name.
 */
type Scrub = Pick<Scrubber, "scrub">;

/** The members of `record` for which `isValue` holds, scrubbed; the others kept as they are. */
function scrubMembers<T extends object>(s: Scrub, record: T, isValue: (key: string) => boolean): T {
  const out = { ...record } as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) if (isValue(k) && v !== null && v !== undefined) out[k] = s.scrub(v);
  return out as T;
}

/** A copy of `record` with every member scrubbed except those named in `structure`, which stay as they are. */
export function scrubExcept<T extends object>(s: Scrub, record: T, structure: ReadonlySet<string>): T {
  return scrubMembers(s, record, (k) => !structure.has(k));
}

/**
 * A content block's `type` is structure when it is one of the MCP content types; a body may
 * write any other string there, so any other type, its `mimeType`, text and data are values.
 */
const BLOCK_TYPES: ReadonlySet<unknown> = new Set(["text", "image", "audio", "json", "resource", "resource_link"]);

function scrubContent(s: Scrub, content: ContentBlock[]): ContentBlock[] {
  return Array.isArray(content)
    ? content.map((b) =>
        b && typeof b === "object" ? scrubMembers(s, b, (k) => k !== "type" || !BLOCK_TYPES.has(b.type)) : s.scrub(b),
      )
    : s.scrub(content);
}

/** The value fields of a run record. */
export const RUN_VALUE_FIELDS = ["input", "content", "data", "details", "errorMessage", "attempts"] as const;

/** An attempt's error message is its only value. */
export function scrubAttempt(s: Scrub, attempt: AttemptRecord): AttemptRecord {
  return attempt.errorMessage === null ? attempt : { ...attempt, errorMessage: s.scrub(attempt.errorMessage) };
}

/** A run record with its values (input, content, data, details, errorMessage, the attempts' messages) scrubbed. */
export function scrubRun(s: Scrub, run: RunRecord): RunRecord {
  return {
    ...run,
    input: s.scrub(run.input),
    content: scrubContent(s, run.content),
    data: s.scrub(run.data),
    details: s.scrub(run.details),
    errorMessage: run.errorMessage === null ? null : s.scrub(run.errorMessage),
    attempts: Array.isArray(run.attempts) ? run.attempts.map((a) => scrubAttempt(s, a)) : run.attempts,
  };
}

/**
 * An interaction's question, answer format, answer and state are values; ids, tool, recipient, status, times and its
 * callback URL are structure.
 */
export function scrubInteraction<T extends { question: string; answerFormat?: unknown; answer?: unknown }>(
  s: Scrub,
  interaction: T,
): T {
  return scrubMembers(
    s,
    interaction,
    (k) => k === "question" || k === "answerFormat" || k === "answer" || k === "state",
  );
}

/** A RUN_PROGRESS update: its message and details are values; progress and total are numbers. */
export function scrubProgress(s: Scrub, progress: RunProgress): RunProgress {
  return {
    ...progress,
    message: progress.message === null ? null : s.scrub(progress.message),
    details: s.scrub(progress.details),
  };
}

/** A run event: its snapshot's values and its progress payload; seq, type, at, runId and tool stay. */
export function scrubRunEvent(s: Scrub, event: RunEventRecord): RunEventRecord {
  return {
    ...event,
    run: scrubRun(s, event.run),
    ...(event.progress ? { progress: scrubProgress(s, event.progress) } : {}),
  };
}

/**
 * The members of an agent stream entry (docs/agent-stream.md §2) that are structure: its
 * discriminant, place, sub-agent name, ids, counts and flags. Every other member (text,
 * data, args, result, details, payload, reason, asks, message, and any member added later)
 * is a value — and so is a step's `tool`: the model chose that name, so a model told to
 * call a tool named like a secret it saw must not stream the secret.
 */
export const AGENT_ENTRY_STRUCTURE: ReadonlySet<string> = new Set([
  "type",
  "final",
  "seq",
  "runId",
  "agent",
  "callId",
  "toolRunId",
  "interruptId",
  "resumedInterruptId",
  "interactionIds",
  "callerInteractionIds",
  "threadId",
  "expiryAt",
  "isError",
  "progress",
  "total",
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "model",
  "kind",
]);

/** An agent stream entry (an event or its run_failed record) with its value members scrubbed. */
export function scrubAgentEntry<T>(s: Scrub, entry: T): T {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return s.scrub(entry);
  return scrubMembers(s, entry, (k) => !AGENT_ENTRY_STRUCTURE.has(k));
}

/**
 * A run-log job with only its values scrubbed: the run's, the attempt's, the update's, an agent entry's payload and
 * checkpoint.
 */
export function scrubJob(s: Scrub, job: LogJob): LogJob {
  switch (job.kind) {
    case "start":
    case "claim":
      return { ...job, run: scrubRun(s, job.run) };
    case "attempt":
      return { ...job, run: scrubRun(s, job.run), attempt: scrubAttempt(s, job.attempt) };
    case "progress":
      return { ...job, run: scrubRun(s, job.run), progress: scrubProgress(s, job.progress) };
    case "finish":
      return { ...job, run: scrubRun(s, job.run), attempt: job.attempt && scrubAttempt(s, job.attempt) };
    case "agentEvent":
      return { ...job, payload: scrubAgentEntry(s, job.payload) };
    case "agentFinish":
      return { ...job, payload: scrubAgentEntry(s, job.payload), checkpoint: s.scrub(job.checkpoint) };
    case "agentCheckpoint":
      return { ...job, progress: s.scrub(job.progress) };
    case "rescrub":
      // It carries only the run's id and scope; it reads what it scrubs inside the transaction.
      return job;
  }
}
