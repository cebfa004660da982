import { useCallback, useEffect, useState } from "react";
import type { TadaDocumentNode } from "tai42/client";
import { useClient } from "../connection.tsx";
import { messageOf } from "./errors.ts";

/** A query's state: the last data (kept while reloading), its error, and a reload. */
export interface QueryState<D> {
  data: D | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/**
 * Runs a query with the connection's client when it mounts, when its variables change and
 * on `reload()`. An answer that arrives after a newer request started is dropped.
 * `skip` holds the request back (the variables are not ready).
 */
export function useQuery<D, V extends Record<string, unknown>>(
  doc: TadaDocumentNode<D, V>,
  variables: V,
  options: { skip?: boolean } = {},
): QueryState<D> {
  const client = useClient();
  const [data, setData] = useState<D | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(!options.skip);
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (options.skip) return;
    let current = true;
    setLoading(true);
    client.request(doc, JSON.parse(key) as V).then(
      (d) => {
        if (!current) return;
        setData(d);
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
  }, [client, doc, key, tick, options.skip]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}
