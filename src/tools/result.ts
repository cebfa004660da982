import { isErrorKind, isToolError, ToolError, type ErrorKind } from "../errors.ts";

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
  /**
   * The call the run carried out (`ctx.toolCallId`: an agent's tool call, an MCP request), unless the body named one.
   */
  toolCallId?: string;
}

const RESULT = Symbol.for("tai42.toolResult");

/** What a body may return to control every field of its result. */
export type ToolResultInit = Partial<Omit<ToolResult, "toolName">> & { toolName?: string };

/**
 * Marks a value as a full tool result, so the body can set `details`, `isError` or
 * `terminate`. Any other return value is treated as plain data.
 */
function markResult(init: ToolResultInit): ToolResultInit {
  return Object.defineProperty({ ...init }, RESULT, { value: true, enumerable: false });
}

/**
 * A failure result built from an error (the seed's `AgentToolResult.from_error`): `isError`
 * true, the message as `errorMessage` and as the one text block the model reads, and the
 * tool's name and call id. A `ToolError` keeps its kind as `errorKind`; any other error or
 * a plain message is recorded as `UPSTREAM`, like every returned failure. Returned from a
 * body it fails the run with that message, never retried (a returned failure carries no verdict).
 */
function fromError(toolName: string, error: unknown, toolCallId?: string): ToolResultInit {
  const errorMessage = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  return markResult({
    content: [{ type: "text", text: errorMessage }],
    isError: true,
    errorMessage,
    ...(isToolError(error) ? { errorKind: error.kind } : {}),
    toolName,
    ...(toolCallId === undefined ? {} : { toolCallId }),
  });
}

/** `toolResult(init)` marks a full result; `toolResult.fromError(toolName, error, toolCallId?)` builds a failed one. */
export const toolResult: ((init: ToolResultInit) => ToolResultInit) & { fromError: typeof fromError } = Object.assign(
  markResult,
  { fromError },
);

export function isToolResultInit(value: unknown): value is ToolResultInit {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[RESULT] === true;
}

/**
 * Normalises what a body returned. A string becomes one text block; any other value is
 * JSON-encoded into a text block and kept as `data` (as decoded from that JSON, so it is
 * what gets stored); `undefined` gives no content. `toolCallId` is the call the run carried
 * out (`RunRequest.toolCallId`), unless the body's result named one. A value JSON cannot carry (a function,
 * a BigInt, a cycle) is an INTERNAL failure, never retried.
 */
export function normalizeResult(toolName: string, value: unknown, toolCallId?: string): ToolResult {
  const result = normalizedResult(toolName, value);
  return result.toolCallId === undefined && toolCallId !== undefined ? { ...result, toolCallId } : result;
}

function normalizedResult(toolName: string, value: unknown): ToolResult {
  if (isToolResultInit(value)) {
    const data = jsonValue(value.data, "data");
    const content =
      value.content === undefined
        ? data === undefined
          ? []
          : blocksFor(data)
        : (jsonValue(value.content, "content")?.value as ContentBlock[]);
    if (value.errorKind !== undefined && !isErrorKind(value.errorKind))
      throw new ToolError(`the tool returned an unknown errorKind ${JSON.stringify(value.errorKind)}`, {
        kind: "INTERNAL",
        retryable: false,
      });
    return {
      content,
      data: data?.value,
      details: jsonValue(value.details, "details")?.value,
      isError: value.isError ?? false,
      errorMessage: value.errorMessage,
      errorKind: value.errorKind,
      terminate: value.terminate ?? false,
      toolName: value.toolName ?? toolName,
      toolCallId: value.toolCallId,
    };
  }
  if (value === undefined) return { content: [], isError: false, terminate: false, toolName };
  if (typeof value === "string")
    return { content: [{ type: "text", text: value }], isError: false, terminate: false, toolName };
  const data = jsonValue(value, "result")!;
  return { content: [{ type: "text", text: data.text }], data: data.value, isError: false, terminate: false, toolName };
}

interface Encoded {
  text: string;
  /** The value as JSON carries it. */
  value: unknown;
}

/** JSON-encodes a value (undefined stays undefined); throws an INTERNAL ToolError when JSON cannot carry it. */
function jsonValue(value: unknown, what: string): Encoded | undefined {
  if (value === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    const reason = (e as Error).message.split("\n")[0];
    throw new ToolError(`the tool's ${what} cannot be encoded as JSON: ${reason}`, {
      kind: "INTERNAL",
      retryable: false,
    });
  }
  if (text === undefined)
    throw new ToolError(`the tool's ${what} cannot be encoded as JSON (a ${typeof value})`, {
      kind: "INTERNAL",
      retryable: false,
    });
  return { text, value: JSON.parse(text) };
}

function blocksFor(data: Encoded): ContentBlock[] {
  return [{ type: "text", text: typeof data.value === "string" ? data.value : data.text }];
}
