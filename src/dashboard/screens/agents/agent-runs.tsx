import { useEffect, useRef } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { Panel } from "../../components/panel.tsx";
import { ShortId, Time } from "../../components/time.tsx";
import { AgentRunsQuery } from "../../api/agents.ts";
import { useQuery } from "../../api/use-query.ts";

/**
 * The latest agent runs the caller may see. Opening one replays it and continues its
 * thread: a run paused on an approval or a question can be decided after a page reload.
 */
export function AgentRuns({ onOpen, changed }: { onOpen(runId: string): void; changed: unknown }) {
  const runs = useQuery(AgentRunsQuery, { first: 8 });
  const { reload } = runs;
  // Read again when a run of this page ends (not when the list first mounts: it was just read).
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) reload();
    mounted.current = true;
  }, [changed, reload]);
  const list = runs.data?.agentRuns.edges.map((e) => e.node) ?? [];
  return (
    <Panel title="Recent agent runs" flush>
      {!list.length ? (
        <div className="empty">No agent run yet.</div>
      ) : (
        <ul className="item-list" data-testid="agent-runs">
          {list.map((r) => (
            <li key={r.id}>
              <button className="item" onClick={() => onOpen(r.id)} data-agent-run={r.id} data-status={r.status}>
                <div className="spread">
                  <span className="row">
                    <StatusBadge status={r.status} />
                    <ShortId id={r.id} />
                  </span>
                  <Time at={r.startedAt} />
                </div>
                <span className="muted">{r.agent}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
