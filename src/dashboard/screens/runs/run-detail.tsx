import { useCallback, useEffect, useRef, useState } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { LiveFlag } from "../../components/live-flag.tsx";
import { Panel } from "../../components/panel.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Duration, ShortId, Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import { messageOf } from "../../api/errors.ts";
import {
  CancelRunMutation,
  isOpen,
  RunLinksQuery,
  type RunEvent,
  type RunLinks,
  type RunLogEntry,
  type ToolRun,
} from "../../api/runs.ts";
import { useAction } from "../../api/use-action.ts";
import { useStream } from "../../api/use-stream.ts";
import { linkTo } from "../../route.ts";
import { RunAttempts } from "./run-attempts.tsx";
import { RunEvents } from "./run-events.tsx";
import { RunOutput } from "./run-outcome.tsx";
import { RunTable } from "./run-table.tsx";
import { RunUnknown } from "./run-unknown.tsx";

/**
 * One run, live: the run and its stored events, parent and children are read, then the
 * run's events after the last stored one follow (runEvents with `afterSeq`), each followed
 * by a fresh read. While the run is open, a child it starts is picked up as well.
 */
export function RunDetail({ id }: { id: string }) {
  const client = useClient();
  const [run, setRun] = useState<ToolRun | null | undefined>(undefined);
  const [links, setLinks] = useState<RunLinks | null>(null);
  const [events, setEvents] = useState<RunLogEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  // Where the log has been read up to; null until the stored events are in.
  const lastSeq = useRef<number | null>(null);

  useEffect(() => {
    let current = true;
    Promise.all([client.run(id), client.request(RunLinksQuery, { id })]).then(
      ([r, l]) => {
        if (!current) return;
        if (lastSeq.current === null) {
          const stored = l.run?.events ?? [];
          lastSeq.current = stored.reduce((m, e) => Math.max(m, e.seq), 0);
          setEvents(stored);
        }
        setRun(r);
        setLinks(l.run);
      },
      (e: unknown) => current && setError(messageOf(e)),
    );
    return () => {
      current = false;
    };
  }, [client, id, tick]);

  const ready = run !== undefined && run !== null;
  const stream = useStream(
    ready ? () => client.runEvents({ runId: id, afterSeq: lastSeq.current ?? 0 }) : null,
    (e: RunEvent) => {
      lastSeq.current = e.seq;
      setEvents((es) => [...es, e]);
      refresh();
    },
    [client, id, ready],
  );
  const open = ready && isOpen(run);
  useStream(open ? () => client.runEvents() : null, (e: RunEvent) => e.run.parentRunId === id && refresh(), [
    client,
    id,
    open,
  ]);

  if (run === undefined) return error ? <ErrorNote error={error} /> : <div className="panel empty">Loading run…</div>;
  if (run === null) return <div className="panel empty">There is no run {id} that you may see.</div>;
  return (
    <div className="stack" data-testid="run-detail" data-status={run.status}>
      <RunHeader run={run} parent={links?.parent ?? null} live={stream.live} />
      <ErrorNote error={error ?? stream.error} />
      {run.status === "OUTCOME_UNKNOWN" && <RunUnknown run={run} onDone={refresh} />}
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
      {!!links?.children.length && (
        <Panel
          title="Children"
          heading={<h2>Runs it started</h2>}
          aside={<span className="muted">{links.children.length}</span>}
          flush
        >
          <RunTable runs={links.children} />
        </Panel>
      )}
    </div>
  );
}

function RunHeader({ run, parent, live }: { run: ToolRun; parent: RunLinks["parent"]; live: boolean }) {
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
            <Time at={run.finishedAt} />{" "}
            {run.finishedAt && (
              <span className="muted">
                (<Duration from={run.startedAt} to={run.finishedAt} />)
              </span>
            )}
          </dd>
          {settledOf(run) && (
            <>
              <dt>Settled by</dt>
              <dd data-testid="settled-by">{settledOf(run)}</dd>
            </>
          )}
          {run.parentRunId && (
            <>
              <dt>Started by</dt>
              <dd>
                {parent ? (
                  <a href={linkTo("runs", parent.id)}>
                    <span className="mono">{parent.tool}</span> <ShortId id={parent.id} />
                  </a>
                ) : (
                  // Not a tool run the caller may open: an agent run's tool call, say.
                  <span title={run.parentRunId}>
                    {run.door === "agent" ? "agent run " : "run "}
                    <ShortId id={run.parentRunId} />
                  </span>
                )}
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

/** Who settled a run whose outcome was unknown, and when (details.settled), or null. */
function settledOf(run: ToolRun): string | null {
  const settled = (run.details as { settled?: { by?: string; at?: string } } | null)?.settled;
  return settled?.by ? `${settled.by}${settled.at ? ` at ${new Date(settled.at).toLocaleString()}` : ""}` : null;
}
