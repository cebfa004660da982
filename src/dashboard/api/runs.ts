import { graphql, type ResultOf, type RunEvent, type ToolRun } from "tai42/client";

export type { RunEvent, ToolRun };

/** What a row of a run list shows. A full ToolRun (a runEvent's) is one too. */
export const RunRowFields = graphql(`
  fragment RunRowFields on ToolRun @_unmask {
    id
    tool
    status
    door
    startedAt
    finishedAt
    parentRunId
    errorKind
  }
`);
export type RunRow = ResultOf<typeof RunRowFields>;

/** A page of runs, newest first, filtered in the server (door included), with how many match in all. */
export const RunListQuery = graphql(
  `
    query RunList($tool: String, $status: RunStatus, $door: Door, $first: Int) {
      runs(tool: $tool, status: $status, door: $door, first: $first) {
        totalCount
        edges {
          node {
            ...RunRowFields
          }
        }
      }
    }
  `,
  [RunRowFields],
);

/** What a run's detail adds to the run: its stored events, where it came from and what it started. */
export const RunLinksQuery = graphql(
  `
    query RunLinks($id: ID!) {
      run(id: $id) {
        id
        events {
          seq
          type
          at
          run {
            status
          }
        }
        parent {
          id
          tool
          status
        }
        children {
          ...RunRowFields
        }
      }
    }
  `,
  [RunRowFields],
);
export type RunLinks = NonNullable<ResultOf<typeof RunLinksQuery>["run"]>;

/** An event as the detail lists it (a runEvent from the subscription is one too). */
export type RunLogEntry = RunLinks["events"][number];

export const CancelRunMutation = graphql(`
  mutation CancelRun($id: ID!) {
    cancelRun(id: $id) {
      id
      status
    }
  }
`);

/** What the runs list filters on. Empty strings: no filter. */
export interface RunFilter {
  tool: string;
  status: string;
  door: string;
}

export const NO_FILTER: RunFilter = { tool: "", status: "", door: "" };

/** The doors a run can come through (ToolRun.door). */
export const DOORS = ["graphql", "agent", "extension", "cli", "mcp", "runtime"] as const;

/** Every status of a run (RunStatus), in the order a run may pass through them. */
export const RUN_STATUSES = [
  "QUEUED",
  "RUNNING",
  "PARKED",
  "SUCCEEDED",
  "FAILED",
  "CANCELLED",
  "OUTCOME_UNKNOWN",
] as const satisfies readonly ToolRun["status"][];

export function matches(run: RunRow, f: RunFilter): boolean {
  return (!f.tool || run.tool === f.tool) && (!f.status || run.status === f.status) && (!f.door || run.door === f.door);
}

/**
 * The live list: runs by id, newest first. A list read from `runs` and the runEvents
 * subscription both feed it; an event always wins over a listed copy of the same run (the
 * list may have been read before the event, never after a later one: each change of a
 * run publishes an event, and the subscription opens before the list is read).
 */
export interface LiveRuns {
  byId: Map<string, RunRow>;
  /** Ids a runEvent has updated: the list no longer overwrites them. */
  fromEvents: Set<string>;
  /** Ids the last list read returned, how many runs matched it in all, and when the newest of them started. */
  listed: Set<string>;
  total: number;
  newestListed: number;
}

export const emptyRuns = (): LiveRuns => ({
  byId: new Map(),
  fromEvents: new Set(),
  listed: new Set(),
  total: 0,
  newestListed: 0,
});

export function withListed(state: LiveRuns, runs: readonly RunRow[], total: number): LiveRuns {
  const byId = new Map(state.byId);
  for (const r of runs) if (!state.fromEvents.has(r.id)) byId.set(r.id, r);
  return {
    ...state,
    byId,
    listed: new Set(runs.map((r) => r.id)),
    total,
    newestListed: Math.max(0, ...runs.map((r) => Date.parse(r.startedAt))),
  };
}

export function withEvent(state: LiveRuns, event: RunEvent): LiveRuns {
  const byId = new Map(state.byId);
  byId.set(event.run.id, event.run);
  return { ...state, byId, fromEvents: new Set(state.fromEvents).add(event.run.id) };
}

/**
 * The runs matching `f`, newest first, and how many match in all (the list's count, plus the runs that started after
 * its newest).
 */
export function visible(state: LiveRuns, f: RunFilter): { runs: RunRow[]; total: number } {
  const runs = [...state.byId.values()]
    .filter((r) => matches(r, f))
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
  const since = runs.filter((r) => !state.listed.has(r.id) && Date.parse(r.startedAt) > state.newestListed).length;
  return { runs, total: state.total + since };
}

/** Whether a run can still change on its own (and so be cancelled). */
export function isOpen(run: Pick<ToolRun, "status">): boolean {
  return run.status === "RUNNING" || run.status === "PARKED" || run.status === "QUEUED";
}
