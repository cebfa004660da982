import { useState } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { Empty, ErrorNote } from "../../components/notes.tsx";
import { ShortId, Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import {
  INTERACTION_STATUSES,
  InteractionsChangedSubscription,
  InteractionsQuery,
  type Interaction,
} from "../../api/interactions.ts";
import type { ToolRun } from "../../api/runs.ts";
import { useQuery } from "../../api/use-query.ts";
import { useStream } from "../../api/use-stream.ts";
import { linkTo } from "../../route.ts";
import { RunOutcome } from "../runs/run-outcome.tsx";
import { AnswerForm } from "./answer-form.tsx";

/**
 * Interactions by status: pending ones with an answer form drawn from their
 * answerFormat; answered, expired and cancelled ones with what became of them. The list
 * is read again each time an interaction opens or closes (interactionsChanged).
 */
export function InteractionsScreen() {
  const client = useClient();
  const [status, setStatus] = useState<(typeof INTERACTION_STATUSES)[number]>("PENDING");
  const list = useQuery(InteractionsQuery, { status });
  const { reload } = list;
  useStream(() => client.subscribe(InteractionsChangedSubscription), reload, [client], { onReopen: reload });
  const items = list.data?.interactions ?? [];
  const [answered, setAnswered] = useState<{ question: string; run: ToolRun } | null>(null);
  return (
    <section className="panel" aria-label="Interactions">
      <header>
        <div className="tabs" role="tablist">
          {INTERACTION_STATUSES.map((s) => (
            <button
              key={s}
              role="tab"
              aria-selected={s === status}
              className={s === status ? "active" : undefined}
              onClick={() => setStatus(s)}
            >
              {s.toLowerCase()}
            </button>
          ))}
        </div>
      </header>
      <ErrorNote error={list.error} />
      <div className="body">
        {answered && (
          <div className="stack answered" data-testid="answered">
            <div className="spread">
              <span>Answered “{answered.question}”. The run went on:</span>
              <button className="small" onClick={() => setAnswered(null)}>
                Dismiss
              </button>
            </div>
            <RunOutcome run={answered.run} />
          </div>
        )}
        {list.data && !items.length && <Empty>No {status.toLowerCase()} interaction.</Empty>}
        {items.map((i) => (
          <InteractionCard
            key={i.id}
            interaction={i}
            onAnswered={(run) => {
              setAnswered({ question: i.question, run });
              reload();
            }}
          />
        ))}
      </div>
    </section>
  );
}

function InteractionCard({ interaction: i, onAnswered }: { interaction: Interaction; onAnswered(run: ToolRun): void }) {
  return (
    <article className="card" data-interaction={i.id} data-status={i.status}>
      <div className="spread">
        <h3>{i.question}</h3>
        <StatusBadge status={i.status} />
      </div>
      <div className="row muted">
        <span>
          <span className="mono">{i.tool}</span> run{" "}
          <a href={linkTo("runs", i.runId)}>
            <ShortId id={i.runId} />
          </a>
        </span>
        <span>· to {i.to}</span>
        <span>
          · asked <Time at={i.createdAt} />
        </span>
        {i.expiresAt && (
          <span>
            · expires <Time at={i.expiresAt} />
          </span>
        )}
      </div>
      {i.status === "PENDING" ? (
        <AnswerForm interaction={i} onAnswered={onAnswered} />
      ) : (
        i.answer !== null &&
        i.answer !== undefined && (
          <div>
            <h4>Answer</h4>
            <JsonView value={i.answer} />
          </div>
        )
      )}
    </article>
  );
}
