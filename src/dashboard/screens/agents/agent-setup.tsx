import { useQuery } from "../../api/use-query.ts";
import { AgentsQuery } from "../../api/agents.ts";
import type { Tool } from "../../api/tools.ts";
import { TierBadge } from "../../components/badges.tsx";
import type { AgentSetup } from "./use-agent-session.ts";

/** Which agent runs, over which tools, which calls need an approval, and the thread. */
export function AgentSetupPanel({
  setup,
  onChange,
  tools,
  threadId,
  onNewThread,
}: {
  setup: AgentSetup;
  onChange(s: AgentSetup): void;
  tools: readonly Tool[];
  threadId: string | null;
  onNewThread(): void;
}) {
  const agents = useQuery(AgentsQuery, {});
  const callable = tools.filter((t) => t.origin !== "AGENT");
  const toggle = (list: string[], name: string, on: boolean) => (on ? [...new Set([...list, name])] : list.filter((n) => n !== name));
  return (
    <section className="panel" aria-label="Agent setup">
      <header>
        <h2>Setup</h2>
        <button className="small" onClick={onNewThread} disabled={!threadId}>
          New thread
        </button>
      </header>
      <div className="body">
        <label className="field-inline">
          <span>Agent</span>
          <select value={setup.agent} onChange={(e) => onChange({ ...setup, agent: e.target.value })} aria-label="Agent">
            {(agents.data?.agents ?? [{ name: "tools_agent", description: "" }]).map((a) => (
              <option key={a.name} value={a.name} title={a.description}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <div className="field-inline">
          <span>Tools the agent may call · ask before</span>
          <ul className="tool-picks" aria-label="Agent tools">
            {callable.map((t) => {
              const on = setup.toolNames.includes(t.name);
              return (
                <li key={t.name}>
                  <label>
                    <input
                      type="checkbox"
                      checked={on}
                      onChange={(e) => onChange({ ...setup, toolNames: toggle(setup.toolNames, t.name, e.target.checked) })}
                      aria-label={`use ${t.name}`}
                    />
                    <span className="mono">{t.name}</span>
                    <TierBadge tier={t.tier} />
                  </label>
                  <label className={`gate${on ? "" : " off"}`} title="The agent stops for your approval before each call of this tool (interruptOn)">
                    <input
                      type="checkbox"
                      disabled={!on}
                      checked={on && setup.gated.includes(t.name)}
                      onChange={(e) => onChange({ ...setup, gated: toggle(setup.gated, t.name, e.target.checked) })}
                      aria-label={`approve ${t.name} calls`}
                    />
                    approve
                  </label>
                </li>
              );
            })}
          </ul>
        </div>
        <label className="field-inline">
          <span>System message (optional)</span>
          <textarea rows={3} value={setup.systemMessage} onChange={(e) => onChange({ ...setup, systemMessage: e.target.value })} aria-label="System message" />
        </label>
        <p className="muted small">
          Without an LLM configured, the server's scripted demo model answers: it calls calculate for arithmetic, clock for the time, kv_put for “remember k is v” and kv_get for
          “recall k”.
        </p>
      </div>
    </section>
  );
}
