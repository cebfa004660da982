import type { AgentInfo } from "../../api/agents.ts";
import type { Tool } from "../../api/tools.ts";
import { ErrorNote } from "../../components/notes.tsx";

/** The agent select: every registered agent, one above the viewer's role shown disabled with its tier. */
export function AgentPicker({
  agents,
  agent,
  onAgent,
  tools,
  mayRun,
  role,
}: {
  agents: readonly AgentInfo[] | null;
  agent: AgentInfo | null;
  onAgent(name: string): void;
  tools: readonly Tool[];
  mayRun(tier: string): boolean;
  role: string | null;
}) {
  return (
    <label className="field-inline">
      <span>Agent</span>
      <select value={agent?.name ?? ""} onChange={(e) => onAgent(e.target.value)} aria-label="Agent" disabled={!agents}>
        {(agents ?? []).map((a) => {
          const tier = agentTier(tools, a.name);
          const allowed = !tier || mayRun(tier);
          return (
            <option key={a.name} value={a.name} disabled={!allowed}>
              {allowed ? a.name : `${a.name} (${tier.toLowerCase()} tier: not for ${role ?? "you"})`}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** Why no agent is set up: the agents failed to load, are loading, none is registered, or none is for the role. */
export function AgentsNote({
  agents,
  agentsError,
  role,
}: {
  agents: readonly AgentInfo[] | null;
  agentsError: string | null;
  role: string | null;
}) {
  if (agentsError) return <ErrorNote error={agentsError} />;
  return (
    <p className="muted small">
      {agents
        ? agents.length
          ? `No agent here is for your role (${role ?? "no access"}).`
          : "No agent is registered."
        : "Loading the agents…"}
    </p>
  );
}

/** The tier of an agent's own surface entry (origin AGENT), when the surface lists it. */
export function agentTier(tools: readonly Tool[], name: string): string | undefined {
  return tools.find((t) => t.origin === "AGENT" && t.name === name)?.tier;
}
