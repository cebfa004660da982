import { useEffect, useRef } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { Panel } from "../../components/panel.tsx";
import { ShortId, Time, shortId } from "../../components/time.tsx";
import { AgentRunsQuery, type AgentRunItem } from "../../api/agents.ts";
import { useQuery } from "../../api/use-query.ts";

/**
 * The latest agent runs the caller may see, each told apart by what it was asked (the start of its message, or the
 * run it resumed), when, its status, the tools it was given, its provider and model, and who started it. Opening one
 * replays it and continues its thread: a run paused on an approval or a question can be decided after a page reload.
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
        <ul className="item-list agent-run-list" data-testid="agent-runs">
          {list.map((r) => (
            <li key={r.id}>
              <button className="item" onClick={() => onOpen(r.id)} data-agent-run={r.id} data-status={r.status}>
                <span className="spread">
                  <span className="row">
                    <StatusBadge status={r.status} />
                    <Time at={r.startedAt} />
                  </span>
                  <ShortId id={r.id} />
                </span>
                <span className="agent-run-ask" data-testid="agent-run-ask">
                  {r.userMessage ? (
                    <q title={r.userMessage}>{r.userMessage}</q>
                  ) : r.resumeOf ? (
                    <span className="faint">resumes run {shortId(r.resumeOf)}</span>
                  ) : (
                    <span className="faint">no message</span>
                  )}
                </span>
                <span className="faint small" data-testid="agent-run-facts">
                  {facts(r).join(" · ")}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** The run's agent, tools, provider and model, and key, as short phrases. */
function facts(r: AgentRunItem): string[] {
  const tools = r.toolNames ?? [];
  return [
    r.agent,
    tools.length
      ? `tools: ${tools.length > 4 ? `${tools.slice(0, 4).join(", ")} +${tools.length - 4}` : tools.join(", ")}`
      : "",
    [r.llmProvider ?? "default provider", r.model].filter(Boolean).join("/"),
    r.callerKey ? `key ${r.callerKey}` : "",
  ].filter(Boolean);
}
