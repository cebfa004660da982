import { useMemo, useState } from "react";
import { fieldsLine, runInput, studioPlan, type ControlValues } from "../../api/agent-input.ts";
import { AgentsQuery } from "../../api/agents.ts";
import { useQuery } from "../../api/use-query.ts";
import { canRun, type Tier } from "../../api/viewer.ts";
import { useConnection } from "../../connection.tsx";
import { useSurface } from "../tools/tools-screen.tsx";
import { AgentRuns } from "./agent-runs.tsx";
import { agentTier } from "./agent-picker.tsx";
import { AGENT_INPUT_FORM, AgentSetupPanel } from "./agent-setup.tsx";
import { ConversationPanel } from "./conversation-panel.tsx";
import { useAgentSession } from "./use-agent-session.ts";

const DEFAULT_AGENT = "tools_agent";
const DEFAULT_CONTROLS: ControlValues = {
  toolNames: ["calculate", "clock", "kv_get", "kv_put"],
  gated: ["kv_put"],
  systemMessage: "",
};

/**
 * Agents (the Studio): the run's setup on the left, the conversation on the right. What
 * the setup offers follows the picked agent's declaration (`studioPlan`); a run starts
 * from the composer, with the agent's input form validated first when it has one.
 */
export function AgentsScreen() {
  const { tools } = useSurface();
  const { viewer } = useConnection();
  const agents = useQuery(AgentsQuery, {});
  const [agentName, setAgentName] = useState(DEFAULT_AGENT);
  const [controls, setControls] = useState<ControlValues>(DEFAULT_CONTROLS);
  // The input form's values, per agent: switching agents and back keeps what was typed.
  const [fields, setFields] = useState<Record<string, Record<string, unknown>>>({});
  const session = useAgentSession();
  const [draft, setDraft] = useState("");
  const list = agents.data?.agents ?? null;
  // The server's default agent, or the first one when an app registered no tools agent.
  // An agent above the viewer's tier is listed, not offered (the server refuses its start).
  const runnable = (name: string) => {
    const tier = agentTier(tools ?? [], name);
    return !tier || canRun(viewer, tier as Tier);
  };
  const agent =
    list?.find((a) => a.name === agentName && runnable(a.name)) ?? list?.find((a) => runnable(a.name)) ?? null;
  const plan = useMemo(() => (agent ? studioPlan(agent) : null), [agent]);
  // Only tools the viewer's role may run: the server refuses the agent's call of any other.
  const available = new Set((tools ?? []).filter((t) => canRun(viewer, t.tier as Tier)).map((t) => t.name));
  const effective: ControlValues = {
    ...controls,
    toolNames: controls.toolNames.filter((t) => available.has(t)),
    gated: controls.gated.filter((t) => available.has(t)),
  };

  const start = (values: Record<string, unknown>) => {
    if (!agent || !plan) return;
    const input = runInput(agent, plan, effective, draft, values);
    const shown = plan.form
      ? fieldsLine(
          Object.fromEntries(Object.entries(values).filter(([k]) => Object.hasOwn(plan.form!.properties as object, k))),
        )
      : "";
    session.send(input, [plan.message ? draft.trim() : "", shown].filter(Boolean).join("\n") || `run ${agent.name}`);
    setDraft("");
  };
  // The form (when the agent has one) validates its fields, then calls `start` with them.
  const submit = () =>
    plan?.form ? (document.getElementById(AGENT_INPUT_FORM) as HTMLFormElement | null)?.requestSubmit() : start({});
  const ready = Boolean(agent && plan) && !session.busy && (!plan?.message || Boolean(draft.trim()));

  return (
    <div className="split agents">
      <div className="stack">
        <AgentSetupPanel
          agents={list}
          agentsError={agents.error}
          agent={agent}
          plan={plan}
          onAgent={setAgentName}
          controls={controls}
          onControls={setControls}
          tools={tools ?? []}
          mayRun={(tier) => canRun(viewer, tier as Tier)}
          role={viewer?.role ?? null}
          fields={(agent && fields[agent.name]) ?? {}}
          onFields={(f) => agent && setFields((all) => ({ ...all, [agent.name]: f }))}
          onRun={start}
          threadId={session.threadId}
          onNewThread={session.reset}
        />
        <AgentRuns onOpen={session.join} changed={session.turns.filter((t) => !t.streaming).length} />
      </div>
      <ConversationPanel
        session={session}
        agentName={agent?.name}
        plan={plan}
        draft={draft}
        onDraft={setDraft}
        ready={ready}
        onSubmit={submit}
      />
    </div>
  );
}
