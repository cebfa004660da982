import { parentPort, workerData } from "node:worker_threads";
import { app } from "../../app.ts";
import { isToolError, ToolError } from "../../errors.ts";
import { isToolResultInit } from "../../tools/result.ts";
import type { ToolContext } from "../../tools/definition.ts";
import { boundUpdate } from "../../tools/tool-update.ts";

/** Runs one tool body in this worker and posts the outcome (see worker-backend.ts). */
const data = workerData as {
  moduleUrl: string;
  tool: string;
  input: Record<string, unknown>;
  runId: string;
  attempt: number;
  caller: ToolContext["caller"];
};
const post = (m: unknown) => parentPort!.postMessage(m);
const unavailable = (what: string) => () => {
  throw new ToolError(`${what} is not available to a body running in a worker thread`, { kind: "INTERNAL" });
};

try {
  await import(data.moduleUrl);
  const def = app.tools.get(data.tool);
  if (!def)
    throw new ToolError(`module ${data.moduleUrl} did not register a tool named "${data.tool}" in the worker`, {
      kind: "INTERNAL",
    });
  const parsed = def.parse ? def.parse(data.input) : { ok: true as const, value: data.input };
  if (!parsed.ok)
    throw new ToolError(`invalid input: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, {
      kind: "INVALID_INPUT",
    });
  const log = (level: "info" | "warn" | "error") => (message: string, fields?: Record<string, unknown>) =>
    post({ log: { level, message, fields } });
  const ctx: ToolContext = {
    signal: new AbortController().signal,
    runId: data.runId,
    attempt: data.attempt,
    caller: data.caller,
    log: { info: log("info"), warn: log("warn"), error: log("error") },
    redact: unavailable("ctx.redact"),
    runTool: unavailable("ctx.runTool"),
    openInteraction: unavailable("ctx.openInteraction"),
    store: { get: unavailable("ctx.store"), set: unavailable("ctx.store") },
    // Checked here, so a malformed update throws in the body that made it; bounded and stored by the parent.
    onUpdate: (update) => void (boundUpdate(update), post({ update })),
  };
  const value = await def.execute(parsed.value as Record<string, unknown>, ctx);
  if (isToolResultInit(value)) post({ ok: true, value: { ...value }, result: true });
  else post({ ok: true, value });
} catch (e) {
  const err = e as Error & Partial<ToolError>;
  post({
    ok: false,
    error: {
      message: err.message ?? String(e),
      name: err.name ?? "Error",
      toolError: isToolError(e),
      kind: err.kind,
      retryable: err.retryable,
      retryAfterSeconds: err.retryAfterSeconds,
    },
  });
}
