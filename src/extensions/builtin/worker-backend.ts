import type { ToolUpdate } from "../../tools/tool-update.ts";
import { Worker } from "node:worker_threads";
import type { App } from "../../app.ts";
import { ToolError, isErrorKind } from "../../errors.ts";
import { isPackageSpecifier, moduleUrl } from "../../modules/load-modules.ts";
import { toolResult } from "../../tools/result.ts";

const BOOTSTRAP = new URL("./worker-bootstrap.mjs", import.meta.url);
const NOT_A_MODULE = new Set(["inline", "demo", "builtin", "preset", "branch"]);

/** What a worker posts back. */
type WorkerReply =
  | { ok: true; value: unknown; result?: false }
  | { ok: true; value: Record<string, unknown>; result: true }
  | {
      ok: false;
      error: {
        message: string;
        kind?: string;
        retryable?: boolean;
        retryAfterSeconds?: number;
        toolError: boolean;
        name: string;
      };
    }
  | { log: { level: "info" | "warn" | "error"; message: string; fields?: Record<string, unknown> } }
  | { update: ToolUpdate };

/**
 * `worker_thread` (BACKEND): runs the tool's body in a fresh worker thread, off the main
 * thread. The worker imports the module that registered the tool and calls it there; a
 * timeout or cancellation terminates the worker, so even a body stuck in a CPU loop is
 * stopped. Only tools registered by a module file can move (the worker must import it);
 * the body gets no `runTool`, interactions or store there.
 */
export function registerWorkerBackend(app: App): void {
  app.extension({
    name: "worker_thread",
    kind: "BACKEND",
    description:
      "Run the tool's body in its own worker thread, off the main thread; a timeout or cancel terminates the worker.",
    create: (tool) => {
      if (NOT_A_MODULE.has(tool.module))
        throw new Error(
          `the worker backend needs a tool registered by a module file (this one comes from "${tool.module}")`,
        );
      const url = moduleUrl(tool.module);
      if (isPackageSpecifier(tool.module) && !url) throw new Error(`cannot resolve module "${tool.module}"`);
      return {
        ...tool,
        run: (input, ctx) =>
          new Promise((resolve, reject) => {
            const worker = new Worker(BOOTSTRAP, {
              workerData: {
                moduleUrl: url,
                tool: tool.name,
                input,
                runId: ctx.runId,
                attempt: ctx.attempt,
                caller: ctx.caller,
              },
              stdout: false,
              stderr: false,
            });
            let settled = false;
            const finish = (f: () => void) => {
              if (settled) return;
              settled = true;
              ctx.signal.removeEventListener("abort", onAbort);
              void worker.terminate();
              f();
            };
            const onAbort = () => finish(() => reject(ctx.signal.reason));
            ctx.signal.addEventListener("abort", onAbort, { once: true });
            worker.on("message", (m: WorkerReply) => {
              if ("log" in m) return void ctx.log[m.log.level](m.log.message, m.log.fields);
              // The worker checked the update already; nothing it sends may throw out of this handler.
              if ("update" in m)
                return void Promise.resolve()
                  .then(() => ctx.onUpdate(m.update))
                  .catch(() => {});
              if (m.ok) return finish(() => resolve(m.result ? toolResult(m.value) : m.value));
              const e = m.error;
              finish(() =>
                reject(
                  e.toolError
                    ? new ToolError(e.message, {
                        kind: isErrorKind(e.kind) ? e.kind : "INTERNAL",
                        retryable: e.retryable,
                        retryAfterSeconds: e.retryAfterSeconds,
                      })
                    : Object.assign(new Error(e.message), { name: e.name }),
                ),
              );
            });
            worker.on("error", (e) => finish(() => reject(e)));
            worker.on("exit", (code) =>
              finish(() =>
                reject(new ToolError(`the worker exited (code ${code}) without answering`, { kind: "INTERNAL" })),
              ),
            );
          }),
      };
    },
  });
}
