import { useEffect, useRef } from "react";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { interruptActions, type Terminal, type TranscriptItem } from "../../api/agents.ts";
import { decidedFrom } from "../../api/decisions.ts";
import { linkTo } from "../../route.ts";
import { AsksCard } from "./asks-card.tsx";
import { InterruptCard } from "./interrupt-card.tsx";
import type { AgentSession, Turn } from "./use-agent-session.ts";

/** The conversation so far: each run's prompt, streamed text, tool steps and terminal. */
export function Transcript({ session }: { session: AgentSession }) {
  const end = useRef<HTMLDivElement>(null);
  const last = session.turns.at(-1);
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [last?.transcript]);
  if (!session.turns.length) {
    return (
      <div className="transcript empty">
        Set up the run on the left, then send. The answer streams here as the model writes it.
      </div>
    );
  }
  return (
    <div className="transcript" data-testid="transcript">
      {session.turns.map((t, i) => (
        <TurnView key={t.key} turn={t} next={session.turns[i + 1]} session={session} latest={t === last} />
      ))}
      <div ref={end} />
    </div>
  );
}

function TurnView({
  turn,
  next,
  session,
  latest,
}: {
  turn: Turn;
  /** The run that followed it in the conversation (the one resuming it, when it paused). */
  next: Turn | undefined;
  session: AgentSession;
  latest: boolean;
}) {
  const { transcript: tr } = turn;
  const final = tr.final;
  return (
    <div
      className="turn"
      data-run={tr.runId ?? ""}
      data-streaming={turn.streaming ? "yes" : "no"}
      data-final={final ? final.__typename : ""}
    >
      {turn.prompt.kind === "user" ? (
        <div className="bubble user">{turn.prompt.text}</div>
      ) : (
        <div className="resume-chip">↻ {turn.prompt.text}</div>
      )}
      {tr.items.map((item, i) => (
        <Item key={i} item={item} ended={!turn.streaming} />
      ))}
      {turn.streaming && !final && <div className="typing">streaming…</div>}
      {final?.__typename === "StructuredFinal" && (
        <div className="bubble agent">
          <JsonView value={final.data} />
        </div>
      )}
      {final?.__typename === "InterruptFinal" && (
        <InterruptCard
          event={final}
          active={latest && !session.busy}
          later={!!next}
          decided={
            next
              ? decidedFrom(
                  final.interruptId,
                  interruptActions(final.payload),
                  next.transcript,
                  next.startedAt,
                  next.by,
                )
              : null
          }
          onDecide={(resume, label) => session.resume(final.runId, resume, label)}
        />
      )}
      {final?.__typename === "AsksFinal" && (
        <AsksCard
          event={final}
          active={latest && !session.busy}
          onAnswer={(resume) => session.resume(final.runId, resume, "answered")}
        />
      )}
      {final?.__typename === "SuspendedFinal" && <SuspendedCard final={final} latest={latest} session={session} />}
      <ErrorNote error={turn.error} />
    </div>
  );
}

/** A run parked on interactions: where to answer them, and (on the latest run) the button that resumes it. */
function SuspendedCard({
  final,
  latest,
  session,
}: {
  final: Extract<Terminal, { __typename: "SuspendedFinal" }>;
  latest: boolean;
  session: AgentSession;
}) {
  return (
    <div className="card pause" data-testid="suspended">
      <h3>
        Waiting on{" "}
        {final.interactionIds.length === 1 ? "an interaction" : `${final.interactionIds.length} interactions`}
      </h3>
      <p className="muted">
        A tool parked. Answer it under <a href={linkTo("interactions")}>Interactions</a>, then resume.
      </p>
      {latest && (
        <div>
          <button
            className="primary"
            disabled={session.busy}
            onClick={() => session.resume(final.runId, {}, "resumed after the answers")}
          >
            Resume
          </button>
        </div>
      )}
    </div>
  );
}

/** One line of a run; `ended`: the run stopped (a call with no result then waits on a decision or an answer). */
function Item({ item, ended }: { item: TranscriptItem; ended: boolean }) {
  switch (item.kind) {
    case "text":
      return (
        <div className="bubble agent" data-testid="agent-text" data-turn={item.turn ?? ""}>
          {item.agent && <span className="speaker">{item.agent}</span>}
          {item.text}
        </div>
      );
    case "aside":
      return (
        <div
          className="aside"
          data-testid="agent-aside"
          data-turn={item.turn ?? ""}
          title="Said beside its tool calls; not part of the answer"
        >
          {item.agent && <span className="speaker">{item.agent}</span>}
          {item.text}
        </div>
      );
    case "reasoning":
      return <div className="reasoning">{item.text}</div>;
    case "usage":
      return (
        <div className="usage">
          {item.model ?? "model"} · {item.inputTokens ?? "?"} tokens in, {item.outputTokens ?? "?"} out
        </div>
      );
    case "call":
      return (
        <div className={`step${item.result?.isError ? " failed" : ""}`} data-testid="tool-step" data-tool={item.tool}>
          <div className="spread">
            <span>
              <span className="faint">{item.agent ? `${item.agent} called` : "called"}</span>{" "}
              <strong className="mono">{item.tool}</strong>
            </span>
            <span className={item.result ? (item.result.isError ? "bad-text" : "ok-text") : "faint"}>
              {item.result ? (item.result.isError ? "error" : "done") : ended ? "not run yet" : "running…"}
            </span>
          </div>
          <JsonView value={item.args} />
          {item.result && (
            <div className="result">
              <span className="faint">→</span> <JsonView value={item.result.value} />
            </div>
          )}
          {item.result?.details != null && (
            <div className="details" data-testid="tool-details">
              <span className="faint">details</span> <JsonView value={item.result.details} />
            </div>
          )}
        </div>
      );
  }
}
