import { useCallback, useEffect, useState } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { LiveFlag } from "../../components/live-flag.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { Duration, formatDuration, ShortId, Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import { mergeSpans, RecentSpansQuery, SpansSubscription, type Span } from "../../api/spans.ts";
import { useQuery } from "../../api/use-query.ts";
import { useStream } from "../../api/use-stream.ts";
import { linkTo } from "../../route.ts";

/** Spans: the latest ones, then each as it opens and closes (the `spans` subscription). */
export function SpansScreen() {
  const client = useClient();
  const [spans, setSpans] = useState<Span[]>([]);
  const recent = useQuery(RecentSpansQuery, { first: 100 });
  const stream = useStream(
    () => client.subscribe(SpansSubscription),
    useCallback((d: { spans: Span }) => setSpans((s) => mergeSpans(s, [d.spans])), []),
    [client],
    { onReopen: recent.reload },
  );
  useEffect(() => {
    // Listed spans never replace a copy the subscription already brought.
    if (recent.data) setSpans((s) => mergeSpans(recent.data!.recentSpans, s));
  }, [recent.data]);
  const [open, setOpen] = useState<string | null>(null);

  return (
    <Panel title="Spans" aside={<LiveFlag live={stream.live} />} flush>
      <ErrorNote error={recent.error ?? stream.error} />
      {spans.length === 0 ? (
        <div className="empty">
          No spans yet. A span is recorded for each call of a branch with the <code>monitor</code> extension (attach it
          in a manifest).
        </div>
      ) : (
        <table className="table" data-testid="span-table">
          <thead>
            <tr>
              <th>Status</th>
              <th>Tool</th>
              <th>Run</th>
              <th>Started</th>
              <th>Took</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {spans.map((s) => (
              <SpanRow key={s.id} span={s} open={open === s.id} onToggle={() => setOpen(open === s.id ? null : s.id)} />
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function SpanRow({ span, open, onToggle }: { span: Span; open: boolean; onToggle(): void }) {
  return (
    <>
      <tr className="linked" data-span={span.id} data-status={span.status}>
        <td>
          <StatusBadge status={span.status} />
        </td>
        <td className="mono">{span.tool}</td>
        <td>
          <a href={linkTo("runs", span.runId)} className="row-link" aria-label={`run ${span.runId} of ${span.tool}`}>
            <ShortId id={span.runId} />
          </a>
        </td>
        <td>
          <Time at={span.startedAt} />
        </td>
        <td>
          {span.durationMs != null ? (
            formatDuration(span.durationMs)
          ) : (
            <Duration from={span.startedAt} to={span.finishedAt} />
          )}
        </td>
        <td>
          <button className="small" onClick={onToggle}>
            {open ? "Hide" : "Attributes"}
          </button>
        </td>
      </tr>
      {open && (
        <tr className="detail-row">
          <td colSpan={6}>
            <JsonView value={span.attributes} />
          </td>
        </tr>
      )}
    </>
  );
}
