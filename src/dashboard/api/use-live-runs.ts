import { useEffect, useRef, useState } from "react";
import type { VariablesOf } from "tai42/client";
import { useClient } from "../connection.tsx";
import { messageOf } from "./errors.ts";
import { emptyRuns, RunListQuery, visible, withEvent, withListed, type LiveRuns, type RunEvent, type RunFilter, type RunRow } from "./runs.ts";
import { useStream, type StreamState } from "./use-stream.ts";

type ListVariables = VariablesOf<typeof RunListQuery>;

export interface LiveRunList {
  /** The newest `first` runs matching the filter. */
  runs: RunRow[];
  /** How many runs match the filter in all. */
  total: number;
  stream: StreamState;
  error: string | null;
  loading: boolean;
}

/**
 * The runs matching a filter, kept live: the runEvents subscription (on the filter's tool)
 * opens first, then the newest `first` runs are read and merged under it (see
 * {@link LiveRuns}). A subscription opened again after a lost connection continues after
 * the last event seen, so nothing in between is missed.
 */
export function useLiveRuns(filter: RunFilter, first = 50): LiveRunList {
  const client = useClient();
  const [state, setState] = useState<LiveRuns>(emptyRuns);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const tool = filter.tool || undefined;
  // The last event seen, and on which subscription (a tool filter, or none).
  const last = useRef<{ tool: string | undefined; seq: number } | null>(null);
  const lastSeq = () => (last.current && last.current.tool === tool ? last.current.seq : undefined);

  const stream = useStream(
    () => client.runEvents({ tool, afterSeq: lastSeq() }),
    (event: RunEvent) => {
      last.current = { tool, seq: event.seq };
      setState((s) => withEvent(s, event));
    },
    [client, tool],
    // Before any event, there is no place to continue from: read the list again.
    { onReopen: () => lastSeq() === undefined && setTick((t) => t + 1) },
  );

  useEffect(() => {
    let current = true;
    setLoading(true);
    const variables: ListVariables = { tool, status: (filter.status || undefined) as ListVariables["status"], door: (filter.door || undefined) as ListVariables["door"], first };
    client.request(RunListQuery, variables).then(
      ({ runs }) => {
        if (!current) return;
        setState((s) => withListed(s, runs.edges.map((e) => e.node), runs.totalCount));
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(messageOf(e));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [client, tool, filter.status, filter.door, first, tick]);

  const shown = visible(state, filter);
  return { runs: shown.runs.slice(0, first), total: shown.total, stream, error, loading };
}
