import { useState } from "react";
import { LiveFlag } from "../../components/live-flag.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import type { RunFilter } from "../../api/runs.ts";
import { useLiveRuns } from "../../api/use-live-runs.ts";
import { RunTable } from "./run-table.tsx";

const PAGE = 50;

/** The runs matching a filter, live (runEvents), newest first; older ones a page at a time. */
export function LiveRunTable({
  filter,
  first = PAGE,
  compact = false,
}: {
  filter: RunFilter;
  first?: number;
  compact?: boolean;
}) {
  const [shown, setShown] = useState(first);
  const { runs, total, stream, error, loading } = useLiveRuns(filter, shown);
  const empty =
    filter.status || filter.door ? "No run matches." : filter.tool ? `No run of ${filter.tool} yet.` : "No runs yet.";
  return (
    <div className="live-table" data-live={stream.live ? "yes" : "no"}>
      <ErrorNote error={error ?? stream.error} />
      {!compact && (
        <div className="live-flag spread">
          <LiveFlag
            live={stream.live}
            text={stream.live ? "live: new runs and changes appear as they happen" : "not live"}
          />
          <span className="muted" data-testid="run-count">
            {runs.length} of {total} run{total === 1 ? "" : "s"}
          </span>
        </div>
      )}
      {loading && !runs.length ? (
        <div className="empty">Loading runs…</div>
      ) : (
        <RunTable runs={runs} compact={compact} empty={empty} />
      )}
      {!compact && runs.length < total && (
        <div className="more">
          <button onClick={() => setShown(shown + PAGE)} disabled={loading}>
            Show older runs
          </button>
        </div>
      )}
    </div>
  );
}
