import type { ModelMessage } from "ai";
import { REDACTED } from "../../auth/tiers.ts";
import type { StoredMessage } from "../threads.ts";
import { scrubExcept } from "../../secrets/value-fields.ts";
import type { RunSecrets } from "./run-secrets.ts";

/**
 * A part's type, call id and media type pair and parse it; its tool name, like its text, is the model's and is
 * scrubbed.
 */
const PART_STRUCTURE: ReadonlySet<string> = new Set(["type", "toolCallId", "mediaType"]);

interface CallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
}

/**
 * Gives every tool call in the history a result. A pause that was abandoned (a new run
 * started without `resume`) leaves calls unanswered, which providers refuse; each gets an
 * error result saying it was not run. `keepLast` spares the last turn (the one a resume
 * is about to answer).
 */
export function closeDangling(history: ModelMessage[], keepLast = false): ModelMessage[] {
  const out: ModelMessage[] = [];
  history.forEach((m, i) => {
    out.push(m);
    if (m.role !== "assistant" || !Array.isArray(m.content)) return;
    const calls = (m.content as { type: string }[]).filter((p): p is CallPart => p.type === "tool-call");
    if (!calls.length || (keepLast && i === history.length - 1)) return;
    const next = history[i + 1];
    const answered = new Set(
      next?.role === "tool" ? (next.content as { toolCallId?: string }[]).map((p) => p.toolCallId) : [],
    );
    const missing = calls.filter((c) => !answered.has(c.toolCallId));
    if (!missing.length) return;
    out.push({
      role: "tool",
      content: missing.map((c) => ({
        type: "tool-result",
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output: { type: "error-text", value: "not run: the run paused at this call and was not resumed" },
      })),
    } as ModelMessage);
  });
  return out;
}

/**
 * A model message as the thread stores it: a secret tool's arguments and results become
 * "[redacted]", and the run's known secrets are scrubbed from everything else.
 */
export function forStorage(message: ModelMessage, redacted: Set<string>, secrets: RunSecrets): StoredMessage {
  let m = message;
  if (Array.isArray(m.content) && redacted.size) {
    const content = (m.content as Record<string, unknown>[]).map((p) => {
      if (!redacted.has(p.toolName as string)) return p;
      if (p.type === "tool-call") return { ...p, input: { redacted: REDACTED } };
      if (p.type === "tool-result") return { ...p, output: { type: "text", value: REDACTED } };
      return p;
    });
    m = { ...m, content } as ModelMessage;
  }
  // Values only: the role and each part's type, tool name and call id are structure (docs/security-model.md §3).
  const content = Array.isArray(m.content)
    ? (m.content as object[]).map((p) => scrubExcept(secrets, p, PART_STRUCTURE))
    : secrets.scrub(m.content);
  const scrubbed = { ...m, content } as ModelMessage;
  return {
    role: scrubbed.role === "system" ? "user" : scrubbed.role,
    content: displayText(scrubbed),
    message: scrubbed,
  };
}

/** The text a thread view shows for a message. */
function displayText(m: ModelMessage): string {
  if (typeof m.content === "string") return m.content;
  return (m.content as Record<string, unknown>[])
    .map((p) => {
      if (p.type === "text") return p.text as string;
      if (p.type === "tool-call") return `[call ${p.toolName} ${JSON.stringify(p.input)}]`;
      if (p.type === "tool-result") {
        const o = p.output as { value?: unknown };
        return `[${p.toolName} → ${typeof o.value === "string" ? o.value : JSON.stringify(o.value ?? null)}]`;
      }
      return "";
    })
    .filter(Boolean)
    .join("\n");
}
