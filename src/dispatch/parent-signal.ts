import { isToolError, ToolError } from "../errors.ts";

/**
 * A child run ends with its parent's attempt (cancel, timeout, shutdown): when `parent` aborts (or already has),
 * `controller` aborts too. A door's own cancellation (a CANCELLED ToolError) keeps its message; a parent's timeout or
 * failure still cancels the child: the child did not time out itself. Returns what stops following the parent.
 */
export function followParent(controller: AbortController, parent: AbortSignal | undefined): () => void {
  const onParentAbort = () =>
    controller.abort(
      isToolError(parent?.reason) && parent.reason.kind === "CANCELLED"
        ? parent.reason
        : new ToolError("the parent run's attempt ended", { kind: "CANCELLED" }),
    );
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return () => parent?.removeEventListener("abort", onParentAbort);
}
