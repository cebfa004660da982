import type { AgentRunInput, RunEvent, StreamEvent } from "./documents.ts";
import { ResumingStream } from "./resuming-stream.ts";
import type { RetryPolicy } from "./retry.ts";
import type { Transport } from "./transport.ts";

/** How a resuming stream picks its events, knows the last one, and resumes. */
export type Cursor<T> = ConstructorParameters<typeof ResumingStream<T>>[3];

/** Opens a stream that resumes after a lost connection; it is in `open` until it ends. */
export function openStream<T>(
  transport: Transport,
  retry: RetryPolicy,
  open: Set<{ return(): Promise<unknown> }>,
  query: string,
  variables: Record<string, unknown>,
  cursor: Cursor<T>,
): ResumingStream<T> {
  const s: ResumingStream<T> = new ResumingStream<T>(transport, query, variables, cursor, retry, () => open.delete(s));
  open.add(s);
  return s;
}

/** How a `runEvents` stream picks its events and resumes after the last `seq` seen. */
export function runEventsCursor(runId?: string, tool?: string, afterSeq?: number): Cursor<RunEvent> {
  return {
    pick: (data) => (data as { runEvents: RunEvent }).runEvents,
    seq: (e) => e.seq,
    isFinal: () => false,
    resumeAfter: (last) => ({ runId, tool, afterSeq: last ? last.seq : afterSeq }),
  };
}

/**
 * How an `agentStream` picks its events, ends on the terminal one, and joins the run again
 * after the last `seq` seen (it cannot before the first event of a new run).
 */
export function agentStreamCursor(input: AgentRunInput, runId?: string, afterSeq?: number): Cursor<StreamEvent> {
  return {
    pick: (data) => (data as { agentStream: StreamEvent }).agentStream,
    seq: (e) => e.seq,
    isFinal: (e) => e.final,
    resumeAfter: (last) => {
      if (last) return { input, runId: last.runId, afterSeq: last.seq };
      if (runId) return { input, runId, afterSeq };
      return {
        cannotResume:
          "the connection was lost before the run's first event, so its runId is unknown (subscribing again would start a second run)",
      };
    },
  };
}
