import { useEffect, useRef, useState } from "react";
import type { AgentRunInput, TaiStream } from "tai42/client";
import { useClient, useConnection } from "../../connection.tsx";
import {
  AgentRunQuery,
  AgentRunsQuery,
  applyEvent,
  emptyTranscript,
  type RunTranscript,
  type StreamEvent,
} from "../../api/agents.ts";
import { shortId } from "../../components/time.tsx";
import { messageOf } from "../../api/errors.ts";

/** One run of the conversation: what started it, and what it streamed. */
export interface Turn {
  key: number;
  /** The user's message, or what a resume decided ("approve kv_put"). */
  prompt: { kind: "user" | "resume"; text: string };
  transcript: RunTranscript;
  streaming: boolean;
  error: string | null;
  /** When the run started (ISO-8601), and the name of the key that started it: null when not known. */
  startedAt: string | null;
  by: string | null;
}

/** How many runs a replay follows along its thread, each resuming the one before. */
const FOLLOW_RESUMES = 10;

export interface AgentSession {
  threadId: string | null;
  turns: Turn[];
  busy: boolean;
  /** Starts a run of `input` on the session's thread; `prompt` is what the transcript shows for it. */
  send(input: AgentRunInput, prompt: string): void;
  /** Resumes the thread's paused run with `resume` (decisions, answers, or {} after a park). */
  resume(pausedRunId: string, resume: unknown, label: string): void;
  /** Opens a stored run (replayed from its first event, then live until it ends) and continues its thread. */
  join(runId: string): void;
  /** Forgets the thread: the next message starts a new one. */
  reset(): void;
}

/**
 * A conversation with an agent: each message or resume is one `agentStream` of the
 * client, which rejoins the run by `afterSeq` on its own after a lost connection, so
 * nothing is shown twice. The thread id comes from the first run (`agentRun`), and every
 * later run continues that thread.
 */
export function useAgentSession(): AgentSession {
  const client = useClient();
  const { viewer } = useConnection();
  const [threadId, setThreadId] = useState<string | null>(null);
  const [turns, setTurns] = useState<Turn[]>([]);
  const open = useRef(new Set<TaiStream<StreamEvent>>());
  const keys = useRef(0);
  useEffect(() => () => open.current.forEach((s) => void s.return?.()), []);

  const threadOf = (runId: string) => threadOfRun(client, runId);

  async function stream(
    input: AgentRunInput,
    prompt: Turn["prompt"],
    join?: { runId: string; afterSeq: number },
    who: Pick<Turn, "startedAt" | "by"> = { startedAt: new Date().toISOString(), by: viewer?.keyName ?? null },
  ) {
    const key = ++keys.current;
    const update = (f: (t: Turn) => Turn) => setTurns((ts) => ts.map((t) => (t.key === key ? f(t) : t)));
    setTurns((ts) => [...ts, { key, prompt, transcript: emptyTranscript(), streaming: true, error: null, ...who }]);
    let s: TaiStream<StreamEvent> | undefined;
    try {
      s = client.agentStream(input, join);
      open.current.add(s);
      let first = true;
      for await (const e of s) {
        update((t) => ({ ...t, transcript: applyEvent(t.transcript, e) }));
        if (first && !input.threadId) void threadOf(e.runId).then((id) => id && setThreadId(id));
        first = false;
      }
      update((t) => ({ ...t, streaming: false }));
    } catch (e) {
      update((t) => ({ ...t, streaming: false, error: messageOf(e) }));
    } finally {
      if (s) open.current.delete(s);
    }
  }

  const reset = () => {
    open.current.forEach((s) => void s.return?.());
    setTurns([]);
    setThreadId(null);
  };

  return {
    threadId,
    turns,
    busy: turns.some((t) => t.streaming),
    send(input, prompt) {
      void stream({ ...input, threadId: threadId ?? undefined }, { kind: "user", text: prompt });
    },
    resume(pausedRunId, resume, label) {
      void (async () => {
        const thread = threadId ?? (await threadOf(pausedRunId));
        if (thread && thread !== threadId) setThreadId(thread);
        await stream(
          { threadId: thread ?? undefined, resume, resumeCheckpointId: pausedRunId },
          { kind: "resume", text: label },
        );
      })();
    },
    join(runId) {
      reset();
      void threadOf(runId).then(setThreadId);
      void replay(client, runId, stream);
    },
    reset,
  };
}

type Client = ReturnType<typeof useClient>;

/** The thread a run belongs to: null when it has none, or the lookup fails. */
function threadOfRun(client: Client, runId: string): Promise<string | null> {
  return client.request(AgentRunQuery, { id: runId }).then(
    (d) => d.agentRun?.threadId ?? null,
    () => null,
  );
}

/**
 * Replays a stored run from its first event, then each later run that resumed it in turn (what was decided or
 * answered, and what came of it), up to {@link FOLLOW_RESUMES}; `stream` shows each as a turn.
 */
async function replay(
  client: Client,
  first: string,
  stream: (
    input: AgentRunInput,
    prompt: Turn["prompt"],
    join: { runId: string; afterSeq: number },
    who: Pick<Turn, "startedAt" | "by">,
  ) => Promise<void>,
) {
  let runId: string | undefined = first;
  for (let n = 0; runId && n < FOLLOW_RESUMES; n++) {
    const run = await client.request(AgentRunQuery, { id: runId }).then(
      (d) => d.agentRun,
      () => null,
    );
    const text: string = n === 0 ? `run ${shortId(runId)}, from its first event` : `resumed by run ${shortId(runId)}`;
    await stream(
      {},
      { kind: "resume", text },
      { runId, afterSeq: 0 },
      {
        startedAt: run?.startedAt ?? null,
        by: run?.callerKey ?? null,
      },
    );
    if (run?.status !== "RESUMED") return;
    const paused: string = runId;
    runId = await client.request(AgentRunsQuery, { first: 100 }).then(
      (d) => d.agentRuns.edges.find((e) => e.node.resumeOf === paused)?.node.id,
      () => undefined,
    );
  }
}
