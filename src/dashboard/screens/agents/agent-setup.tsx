import { useState } from "react";
import type { ControlValues, StudioPlan } from "../../api/agent-input.ts";
import type { AgentInfo } from "../../api/agents.ts";
import type { Tool } from "../../api/tools.ts";
import { TierBadge } from "../../components/badges.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { AgentPicker, AgentsNote } from "./agent-picker.tsx";
import { Markdown } from "../../components/markdown.tsx";

const TIER_ORDER = ["READ", "WRITE", "FENCED", "SECRET"];

/** The id of the agent's input form: the composer's button submits it. */
export const AGENT_INPUT_FORM = "agent-input";

/**
 * Which agent runs and with what: the agent picked from every registered one, then what
 * its declaration lets the Studio offer (`studioPlan`): the tool picks, approval gates
 * and system message of a specRunnable agent that advertises them, and the rest of its
 * declared input as a form drawn from its input schema.
 */
/** What the setup panel shows and what it calls back. */
export interface AgentSetupProps {
  agents: readonly AgentInfo[] | null;
  agentsError: string | null;
  agent: AgentInfo | null;
  plan: StudioPlan | null;
  onAgent(name: string): void;
  controls: ControlValues;
  onControls(c: ControlValues): void;
  tools: readonly Tool[];
  /** Whether the viewer's role may run a tool of this tier: a tool it may not is shown, not offered. */
  mayRun(tier: string): boolean;
  role: string | null;
  fields: Record<string, unknown>;
  onFields(f: Record<string, unknown>): void;
  /** Called with the form's validated fields when the composer submits it. */
  onRun(fields: Record<string, unknown>): void;
  threadId: string | null;
  onNewThread(): void;
}

export function AgentSetupPanel(props: AgentSetupProps) {
  const { agents, agentsError, agent, plan, role, threadId, onNewThread } = props;
  const [open, setOpen] = useState(false);
  return (
    <section className="panel" aria-label="Agent setup">
      <header>
        <h2>Setup</h2>
        <button className="small" onClick={onNewThread} disabled={!threadId}>
          New thread
        </button>
      </header>
      <div className="body setup">
        <AgentPicker
          agents={agents}
          agent={agent}
          onAgent={props.onAgent}
          tools={props.tools}
          mayRun={props.mayRun}
          role={role}
        />
        {!agent || !plan ? (
          <AgentsNote agents={agents} agentsError={agentsError} role={role} />
        ) : (
          <AgentSetupBody {...props} agent={agent} plan={plan} open={open} onOpen={setOpen} />
        )}
      </div>
    </section>
  );
}

/** The picked agent's setup: its description, tool picks, system message, input form and the demo model's note. */
function AgentSetupBody({
  agent,
  plan,
  controls,
  onControls,
  tools,
  mayRun,
  role,
  fields,
  onFields,
  onRun,
  open,
  onOpen,
}: AgentSetupProps & { agent: AgentInfo; plan: StudioPlan; open: boolean; onOpen(open: boolean): void }) {
  return (
    <>
      <div className="muted small agent-description" data-testid="agent-description">
        <Markdown source={agent.description} />
      </div>
      {!agent.specRunnable && (
        <p className="faint small" data-testid="not-composable">
          This agent is not specRunnable: it takes its own input below, and no tool picks, approvals or system message.
        </p>
      )}
      {plan.controls.toolNames && (
        <ToolPicks
          tools={tools}
          controls={controls}
          onChange={onControls}
          gates={plan.controls.interruptOn}
          mayRun={mayRun}
          role={role}
        />
      )}
      {plan.controls.systemMessage && (
        <label className="field-inline">
          <span>System message (optional)</span>
          <textarea
            rows={3}
            value={controls.systemMessage}
            onChange={(e) => onControls({ ...controls, systemMessage: e.target.value })}
            aria-label="System message"
          />
        </label>
      )}
      {plan.form && (
        <AgentInputForm
          key={agent.name}
          agent={agent}
          plan={plan}
          fields={fields}
          onFields={onFields}
          onRun={onRun}
          open={open || !agent.specRunnable}
          onOpen={onOpen}
        />
      )}
      {plan.controls.toolNames && (
        <p className="muted small">
          Without an LLM configured, the server&apos;s scripted demo model answers: it calls calculate for arithmetic,
          clock for the time, kv_put for “remember k is v” and kv_get for “recall k”.
        </p>
      )}
    </>
  );
}

/**
 * The agent's declared input no control takes; folded for a specRunnable agent (its controls come first), open for any
 * other.
 */
function AgentInputForm({
  agent,
  plan,
  fields,
  onFields,
  onRun,
  open,
  onOpen,
}: {
  agent: AgentInfo;
  plan: StudioPlan;
  fields: Record<string, unknown>;
  onFields(f: Record<string, unknown>): void;
  onRun(fields: Record<string, unknown>): void;
  open: boolean;
  onOpen(open: boolean): void;
}) {
  const form = (
    <SchemaForm
      id={`agent-${agent.name}`}
      formId={AGENT_INPUT_FORM}
      schema={plan.form!}
      submitLabel="Run"
      actions={false}
      value={fields}
      onChange={(v) => onFields((v ?? {}) as Record<string, unknown>)}
      onSubmit={(v) => onRun((v ?? {}) as Record<string, unknown>)}
      onInvalid={() => onOpen(true)}
    />
  );
  if (!agent.specRunnable)
    return (
      <div className="field-inline agent-input" aria-label="Agent input">
        <span>Input of {agent.name}</span>
        {form}
      </div>
    );
  return (
    <details
      className="agent-input"
      open={open}
      onToggle={(e) => onOpen(e.currentTarget.open)}
      aria-label="Agent input"
    >
      <summary>
        More input <span className="faint">({plan.formFields} fields)</span>
      </summary>
      {form}
    </details>
  );
}

/**
 * The tools the agent may call, each with its approval gate (interruptOn) when the agent advertises one. Only the tools
 * the viewer's role may run are offered (the server's tier matrix, `auth/tiers.ts`): the agent calls tools with the
 * caller's rights, so the server would refuse each call of any other. How many are left out, and why, is said.
 */
function ToolPicks({
  tools,
  controls,
  onChange,
  gates,
  mayRun,
  role,
}: {
  tools: readonly Tool[];
  controls: ControlValues;
  onChange(c: ControlValues): void;
  gates: boolean;
  mayRun(tier: string): boolean;
  role: string | null;
}) {
  const callable = tools.filter((t) => t.origin !== "AGENT");
  const offered = callable.filter((t) => mayRun(t.tier));
  const withheld = callable.filter((t) => !mayRun(t.tier));
  const toggle = (list: string[], name: string, on: boolean) =>
    on ? [...new Set([...list, name])] : list.filter((n) => n !== name);
  return (
    <div className="field-inline">
      <span>Tools the agent may call{gates ? " · ask before" : ""}</span>
      {offered.length ? (
        <ul className="tool-picks" aria-label="Agent tools">
          {offered.map((t) => {
            const on = controls.toolNames.includes(t.name);
            return (
              <li key={t.name}>
                <label>
                  <input
                    type="checkbox"
                    checked={on}
                    onChange={(e) =>
                      onChange({ ...controls, toolNames: toggle(controls.toolNames, t.name, e.target.checked) })
                    }
                    aria-label={`use ${t.name}`}
                  />
                  <span className="mono">{t.name}</span>
                  <TierBadge tier={t.tier} />
                </label>
                {gates && (
                  <label
                    className={`gate${on ? "" : " off"}`}
                    title="The agent stops for your approval before each call of this tool (interruptOn)"
                  >
                    <input
                      type="checkbox"
                      disabled={!on}
                      checked={on && controls.gated.includes(t.name)}
                      onChange={(e) =>
                        onChange({ ...controls, gated: toggle(controls.gated, t.name, e.target.checked) })
                      }
                      aria-label={`approve ${t.name} calls`}
                    />
                    approve
                  </label>
                )}
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="faint small">Your role may run none of the surface&apos;s tools.</p>
      )}
      {withheld.length > 0 && <WithheldNote withheld={withheld} role={role} />}
    </div>
  );
}

/** How many tools are left out of the picks, and why: the viewer's role may not run their tiers. */
function WithheldNote({ withheld, role }: { withheld: readonly Tool[]; role: string | null }) {
  return (
    <p
      className="faint small"
      data-testid="withheld-tools"
      title={withheld.map((t) => `${t.name} (${t.tier.toLowerCase()})`).join(", ")}
    >
      {withheld.length} tool{withheld.length === 1 ? " is" : "s are"} not offered: your role ({role ?? "no access"}) may
      not run{" "}
      {TIER_ORDER.filter((tier) => withheld.some((t) => t.tier === tier))
        .map((tier) => tier.toLowerCase())
        .join(" or ")}{" "}
      tools, so the server would refuse the agent&apos;s calls.
    </p>
  );
}
