import { useEffect, useRef, useState } from "react";
import type { VariablesOf } from "tai42/client";
import { useClient } from "../connection.tsx";
import {
  emptyRuns,
  RunListQuery,
  visible,
  withEvent,
  withListed,
  type LiveRuns,
  type RunEvent,
  type RunFilter,
  type RunRow,
} from "./runs.ts";
import { useQuery } from "./use-query.ts";
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
    { onReopen: () => lastSeq() === undefined && list.reload() },
  );

  // Declared after the stream on purpose: effects run in order, so the subscription opens before the list is read.
  const variables: ListVariables = {
    tool,
    status: (filter.status || undefined) as ListVariables["status"],
    door: (filter.door || undefined) as ListVariables["door"],
    first,
  };
  const list = useQuery(RunListQuery, variables);
  useEffect(() => {
    if (list.data)
      setState((s) =>
        withListed(
          s,
          list.data!.runs.edges.map((e) => e.node),
          list.data!.runs.totalCount,
        ),
      );
  }, [list.data]);

  const shown = visible(state, filter);
  return { runs: shown.runs.slice(0, first), total: shown.total, stream, error: list.error, loading: list.loading };
}
