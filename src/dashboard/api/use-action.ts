import { useCallback, useState } from "react";
import { messageOf } from "./errors.ts";

/** A user's action in flight (a mutation, a dispatch): whether it runs, and why it failed. */
export interface Action {
  busy: boolean;
  error: string | null;
  /**
   * Runs `work` unless one is already running; its failure is kept in `error` (with
   * `explain` turning the error into the sentence shown), and it resolves either way.
   */
  run(work: () => Promise<unknown>, explain?: (e: unknown) => string): Promise<void>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>, explain: (e: unknown) => string = messageOf) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(explain(e));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
