import { OriginBadge, TierBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ForbiddenNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { useConnection } from "../../connection.tsx";
import type { Tool } from "../../api/tools.ts";
import { canRun, isAdmin, type Tier } from "../../api/viewer.ts";
import { NO_FILTER } from "../../api/runs.ts";
import { linkTo } from "../../route.ts";
import { LiveRunTable } from "../runs/live-run-table.tsx";
import { ToolRunForm } from "./tool-run-form.tsx";
import { LimitFacts } from "./tool-limits.tsx";
import { Markdown } from "../../components/markdown.tsx";

/** One surface entry: what it is, a form to run it, and its latest runs, live. */
export function ToolDetail({ tool }: { tool: Tool }) {
  const { viewer } = useConnection();
  const allowed = canRun(viewer, tool.tier as Tier);
  return (
    <div className="stack">
      <Panel
        title={`Tool ${tool.name}`}
        heading={
          <div className="row">
            <h2 className="mono title-name">{tool.name}</h2>
            {tool.label && <span className="muted">{tool.label}</span>}
          </div>
        }
        aside={
          <span className="row">
            <OriginBadge origin={tool.origin} />
            <TierBadge tier={tool.tier} />
          </span>
        }
      >
        <Markdown source={tool.description} />
        <ToolFacts tool={tool} />
      </Panel>
      <Panel title="Run" aside={<span className="muted">input from its JSON Schema</span>}>
        {allowed ? (
          <ToolRunForm tool={tool} />
        ) : (
          <ForbiddenNote>
            {viewer?.role
              ? `Your role (${viewer.role}) may not run ${tool.tier.toLowerCase()} tools`
              : "You have no access"}
            : the server would refuse the run with PERMISSION_DENIED.
            {!isAdmin(viewer) && " An ADMIN key may run every tier."}
          </ForbiddenNote>
        )}
      </Panel>
      <Panel title="Latest runs" aside={<a href={linkTo("runs")}>All runs →</a>} flush>
        <LiveRunTable filter={{ ...NO_FILTER, tool: tool.name }} first={10} compact />
      </Panel>
    </div>
  );
}

function ToolFacts({ tool }: { tool: Tool }) {
  const policy = tool.retryPolicy;
  return (
    <dl className="facts">
      <dt>Execution</dt>
      <dd>
        {tool.executionMode.toLowerCase()}, timeout {tool.timeoutSeconds} s{tool.pauses && ", may pause for answers"}
      </dd>
      <dt>Retry</dt>
      <dd>
        {policy ? (
          `${policy.maxAttempts} attempts on ${policy.retryableKinds.join(", ").toLowerCase() || "no error kind"}, backoff ${policy.backoff.initialSeconds} s ×${policy.backoff.multiplier} (≤ ${policy.backoff.capSeconds} s), declared on ${policy.declaredOn}`
        ) : (
          // Why there is none (a branch inherits nothing from what it wraps), as the API says it.
          <span data-why="retry">{tool.retryExplained}</span>
        )}
      </dd>
      <LimitFacts tool={tool} />
      {tool.baseTool && (
        <>
          <dt>Base</dt>
          <dd>
            <a href={linkTo("tools", tool.baseTool)} className="mono">
              {tool.baseTool}
            </a>
          </dd>
        </>
      )}
      {tool.extensionStack.length > 0 && (
        <>
          <dt>Extensions</dt>
          <dd className="mono">{tool.extensionStack.join(" → ")}</dd>
        </>
      )}
      {tool.fixedKwargs && (
        <>
          <dt>Baked</dt>
          <dd>
            <JsonView value={tool.fixedKwargs} />
          </dd>
        </>
      )}
    </dl>
  );
}
