import { useCallback, useEffect, useRef, useState } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { LiveFlag } from "../../components/live-flag.tsx";
import { Panel } from "../../components/panel.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Duration, ShortId, Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import { messageOf } from "../../data/errors.ts";
import { CancelRunMutation, isOpen, type RunEvent, type ToolRun } from "../../data/runs.ts";
import { useAction } from "../../data/use-action.ts";
import { useStream } from "../../data/use-stream.ts";
import { linkTo } from "../../route.ts";
import { RunAttempts } from "./run-attempts.tsx";
import { RunEvents } from "./run-events.tsx";
import { RunOutput } from "./run-outcome.tsx";

/**
 * One run, live: read once, then every event of its log from the first (runEvents with
 * `afterSeq: 0` replays the stored ones, then follows), each followed by a fresh read.
 */
export function RunDetail({ id }: { id: string }) {
  const client = useClient();
  const [run, setRun] = useState<ToolRun | null | undefined>(undefined);
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let current = true;
    client.run(id).then(
      (r) => current && setRun(r),
      (e: unknown) => current && setError(messageOf(e)),
    );
    return () => {
      current = false;
    };
  }, [client, id, tick]);

  // Where the log was read up to: a stream opened again after a lost connection continues there.
  const lastSeq = useRef(0);
  const stream = useStream(
    () => client.runEvents({ runId: id, afterSeq: lastSeq.current }),
    useCallback((e: RunEvent) => {
      lastSeq.current = e.seq;
      setEvents((es) => [...es, e]);
      setTick((t) => t + 1);
    }, []),
    [client, id],
  );

  if (run === undefined) return error ? <ErrorNote error={error} /> : <div className="panel empty">Loading run…</div>;
  if (run === null) return <div className="panel empty">There is no run {id} that you may see.</div>;
  return (
    <div className="stack" data-testid="run-detail" data-status={run.status}>
      <RunHeader run={run} live={stream.live} />
      <ErrorNote error={error ?? stream.error} />
      <div className="split even">
        <Panel title="Input">
          <JsonView value={run.input} />
        </Panel>
        <Panel title="Output">
          <RunOutput run={run} />
        </Panel>
      </div>
      <RunAttempts run={run} />
      {run.interactions.length > 0 && <RunInteractions run={run} />}
      <RunEvents events={events} />
    </div>
  );
}

function RunHeader({ run, live }: { run: ToolRun; live: boolean }) {
  const client = useClient();
  const { busy: cancelling, error, run: act } = useAction();
  const cancel = () => act(() => client.request(CancelRunMutation, { id: run.id }));
  return (
    <section className="panel" aria-label="Run">
      <header>
        <div className="row">
          <a href={linkTo("runs")}>← Runs</a>
          <h2 className="mono title-name">{run.tool}</h2>
          <StatusBadge status={run.status} />
          <LiveFlag live={live} />
        </div>
        {isOpen(run) && (
          <button className="danger" onClick={cancel} disabled={cancelling}>
            {cancelling ? "Cancelling…" : "Cancel run"}
          </button>
        )}
      </header>
      <div className="body">
        <ErrorNote error={error} />
        <dl className="facts wide">
          <dt>Run</dt>
          <dd className="mono">{run.id}</dd>
          <dt>Tool</dt>
          <dd>
            <a href={linkTo("tools", run.tool)} className="mono">
              {run.tool}
            </a>
          </dd>
          <dt>Door</dt>
          <dd>{run.door}</dd>
          <dt>Started</dt>
          <dd>
            <Time at={run.startedAt} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <Time at={run.finishedAt} /> {run.finishedAt && <span className="muted">(<Duration from={run.startedAt} to={run.finishedAt} />)</span>}
          </dd>
          {run.parentRunId && (
            <>
              <dt>Parent</dt>
              <dd>
                <a href={linkTo("runs", run.parentRunId)}>
                  <ShortId id={run.parentRunId} />
                </a>
              </dd>
            </>
          )}
        </dl>
      </div>
    </section>
  );
}

function RunInteractions({ run }: { run: ToolRun }) {
  return (
    <Panel title="Interactions" heading={<h2>Waits on</h2>} aside={<a href={linkTo("interactions")}>Interactions →</a>}>
      {run.interactions.map((i) => (
        <div key={i.id} className="spread">
          <span>{i.question}</span>
          <span className="row">
            <span className="muted">to {i.to}</span>
            <StatusBadge status={i.status} />
            {i.answer !== null && i.answer !== undefined && <JsonView value={i.answer} />}
          </span>
        </div>
      ))}
    </Panel>
  );
}
