import { LiveFlag } from "../../components/live-flag.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import type { RunFilter } from "../../data/runs.ts";
import { useLiveRuns } from "../../data/use-live-runs.ts";
import { RunTable } from "./run-table.tsx";

/** The runs matching a filter, live (runEvents), newest first. */
export function LiveRunTable({ filter, first = 50, compact = false }: { filter: RunFilter; first?: number; compact?: boolean }) {
  const { runs, stream, error, loading } = useLiveRuns(filter, first);
  return (
    <div className="live-table" data-live={stream.live ? "yes" : "no"}>
      <ErrorNote error={error ?? stream.error} />
      {!compact && (
        <div className="live-flag">
          <LiveFlag live={stream.live} text={stream.live ? "live: new runs and changes appear as they happen" : "not live"} />
        </div>
      )}
      {loading && !runs.length ? <div className="empty">Loading runs…</div> : <RunTable runs={runs.slice(0, first)} compact={compact} empty={filter.status || filter.door ? "No run matches." : filter.tool ? `No run of ${filter.tool} yet.` : "No runs yet."} />}
    </div>
  );
}
