import type { ErrorKind } from "../errors.ts";

/** A block of tool output for the model. */
export interface ContentBlock {
  type: "text" | "image" | "json" | string;
  text?: string;
  data?: unknown;
  mimeType?: string;
}

/** The normalised outcome of one tool body (the seed's `AgentToolResult`). */
export interface ToolResult {
  /** Blocks shown to the model. */
  content: ContentBlock[];
  /** The structured value, when the body returned one. */
  data?: unknown;
  /** Facts for a UI, never shown to the model. */
  details?: unknown;
  isError: boolean;
  errorMessage?: string;
  /** The kind a returned (not thrown) error result is recorded with. @default "UPSTREAM" */
  errorKind?: ErrorKind;
  /** Asks the agent loop to stop after this batch. */
  terminate: boolean;
  toolName: string;
  toolCallId?: string;
}

const RESULT = Symbol.for("tai42.toolResult");

/** What a body may return to control every field of its result. */
export type ToolResultInit = Partial<Omit<ToolResult, "toolName">> & { toolName?: string };

/**
 * Marks a value as a full tool result, so the body can set `details`, `isError` or
 * `terminate`. Any other return value is treated as plain data.
 */
export function toolResult(init: ToolResultInit): ToolResultInit {
  return Object.defineProperty({ ...init }, RESULT, { value: true, enumerable: false });
}

export function isToolResultInit(value: unknown): value is ToolResultInit {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[RESULT] === true;
}

/**
 * Normalises what a body returned. A string becomes one text block; any other value is
 * JSON-encoded into a text block and kept as `data`; `undefined` gives no content.
 */
export function normalizeResult(toolName: string, value: unknown): ToolResult {
  if (isToolResultInit(value)) {
    const content = value.content ?? (value.data === undefined ? [] : blocksFor(value.data));
    return {
      content,
      data: value.data,
      details: value.details,
      isError: value.isError ?? false,
      errorMessage: value.errorMessage,
      errorKind: value.errorKind,
      terminate: value.terminate ?? false,
      toolName: value.toolName ?? toolName,
      toolCallId: value.toolCallId,
    };
  }
  if (value === undefined) return { content: [], isError: false, terminate: false, toolName };
  if (typeof value === "string") return { content: [{ type: "text", text: value }], isError: false, terminate: false, toolName };
  return { content: blocksFor(value), data: value, isError: false, terminate: false, toolName };
}

function blocksFor(value: unknown): ContentBlock[] {
  if (typeof value === "string") return [{ type: "text", text: value }];
  return [{ type: "text", text: JSON.stringify(value) }];
}
