import type { Caller } from "../auth/roles.ts";
import { isAdmin } from "../auth/tiers.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import type { RunUsage } from "./events.ts";

/** Tokens model calls used, as the providers reported them (a count a provider did not report adds nothing). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Token totals over agent runs, and how many runs they cover. */
export interface UsageTotals extends TokenUsage {
  runs: number;
}

export const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * The RunUsage events one launch of a run emitted, summed (docs/agent-stream.md §2.5):
 * what its end adds to the run's stored totals. A continuation of the same run (docs/agent-stream.md §7.1)
 * adds its own.
 */
export class UsageTally {
  readonly sum: TokenUsage = { ...NO_USAGE };

  add(e: RunUsage): void {
    this.sum.inputTokens += e.inputTokens ?? 0;
    this.sum.outputTokens += e.outputTokens ?? 0;
    this.sum.totalTokens += e.totalTokens ?? (e.inputTokens ?? 0) + (e.outputTokens ?? 0);
  }
}

/**
 * The summed usage of the agent runs `where` selects (by thread, by the key that started them): one indexed aggregate.
 */
export async function usageWhere(db: Db, where: { threadId: string } | { callerKey: string }): Promise<UsageTotals> {
  const agg = await db.agentRun.aggregate({
    where,
    _sum: { inputTokens: true, outputTokens: true, totalTokens: true },
    _count: { _all: true },
  });
  return {
    inputTokens: agg._sum.inputTokens ?? 0,
    outputTokens: agg._sum.outputTokens ?? 0,
    totalTokens: agg._sum.totalTokens ?? 0,
    runs: agg._count._all,
  };
}

/**
 * The usage of the agent runs an API key started (by its name): an ADMIN reads any key's,
 * any other caller only its own key's; FORBIDDEN otherwise. A key that started nothing (or
 * never existed) has zero totals.
 */
export function keyUsage(db: Db, keyName: string, caller: Caller): Promise<UsageTotals> {
  if (!isAdmin(caller.role) && caller.keyName !== keyName)
    throw new ApiError(
      "FORBIDDEN",
      caller.keyName
        ? `only an ADMIN may read the usage of another key than yours ("${caller.keyName}")`
        : "an anonymous caller has no key usage to read",
    );
  return usageWhere(db, { callerKey: keyName });
}
