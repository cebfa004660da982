import { z } from "zod";
import { ToolError } from "../errors.ts";

/**
 * A partial update a body reports through `ctx.onUpdate` while it runs (the seed's
 * `on_update`): what it is doing, how far along, and structured facts for a UI. Every
 * field is optional, but an update says at least one thing.
 */
export interface ToolUpdate {
  /** What the tool is doing now, in words. Longer than {@link PROGRESS_BOUNDS.messageChars} is cut. */
  message?: string;
  /** How far along: a finite number ≥ 0 (with `total`, out of it). */
  progress?: number;
  /** The amount `progress` counts towards, when known: a finite number > 0. */
  total?: number;
  /**
   * Structured facts (JSON); dropped, with `detailsDropped`, when its JSON is over {@link
   * PROGRESS_BOUNDS.detailsBytes}.
   */
  details?: unknown;
}

/** An update as stored in the run log and published (docs/tool-authoring.md §5). */
export interface RunProgress {
  message: string | null;
  progress: number | null;
  total: number | null;
  details: unknown;
  /** The JSON size of details that were over the bound and dropped; null when nothing was dropped. */
  detailsDropped: number | null;
}

/** The bounds that keep a chatty tool from flooding the run log (docs/tool-authoring.md §5). */
export const PROGRESS_BOUNDS = Object.freeze({
  /** At most one RUN_PROGRESS per run in this many milliseconds; later updates replace the pending one. */
  intervalMs: 250,
  /** At most this many RUN_PROGRESS events per execution of a run; later updates are dropped. */
  perRun: 100,
  /** A longer message is cut to this many characters (an ellipsis marks the cut). */
  messageChars: 1000,
  /** Details whose JSON is longer than this many bytes are dropped. */
  detailsBytes: 8192,
});

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const UpdateSchema = z
  .strictObject({
    message: z.string().optional(),
    progress: finite.refine((n) => n >= 0, "must be >= 0").optional(),
    total: finite.refine((n) => n > 0, "must be > 0").optional(),
    details: z.unknown().optional(),
  })
  .refine(
    (u) => Object.values(u).some((v) => v !== undefined),
    "an update must give message, progress, total or details",
  );

/**
 * Checks an update and brings it within the bounds. Throws a `ToolError` (INTERNAL, never
 * retried) naming each wrong field: a malformed update is the author's mistake.
 */
export function boundUpdate(update: unknown): RunProgress {
  const parsed = UpdateSchema.safeParse(update);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.length ? `/${i.path.join("/")}` : "(update)"}: ${i.message}`)
      .join("; ");
    throw new ToolError(`ctx.onUpdate: invalid update: ${issues}`, { kind: "INTERNAL", retryable: false });
  }
  const u = parsed.data;
  const { messageChars, detailsBytes } = PROGRESS_BOUNDS;
  const message =
    u.message === undefined
      ? null
      : u.message.length > messageChars
        ? `${u.message.slice(0, messageChars - 1)}…`
        : u.message;
  let details: unknown = null;
  let detailsDropped: number | null = null;
  if (u.details !== undefined) {
    let text: string | undefined;
    try {
      text = JSON.stringify(u.details);
    } catch {
      throw new ToolError("ctx.onUpdate: invalid update: /details: cannot be encoded as JSON", {
        kind: "INTERNAL",
        retryable: false,
      });
    }
    const bytes = text === undefined ? 0 : Buffer.byteLength(text);
    if (text === undefined) details = null;
    else if (bytes > detailsBytes) detailsDropped = bytes;
    else details = JSON.parse(text);
  }
  return { message, progress: u.progress ?? null, total: u.total ?? null, details, detailsDropped };
}
