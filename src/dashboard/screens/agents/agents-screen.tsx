import { useState } from "react";
import { useSurface } from "../tools/tools-screen.tsx";
import { AgentRuns } from "./agent-runs.tsx";
import { AgentSetupPanel } from "./agent-setup.tsx";
import { Transcript } from "./transcript.tsx";
import { useAgentSession, type AgentSetup } from "./use-agent-session.ts";

const DEFAULT_SETUP: AgentSetup = { agent: "tools_agent", toolNames: ["calculate", "clock", "kv_get", "kv_put"], gated: ["kv_put"], systemMessage: "" };

/** Agents: the run's setup on the left, the conversation on the right. */
export function AgentsScreen() {
  const { tools } = useSurface();
  const [setup, setSetup] = useState<AgentSetup>(DEFAULT_SETUP);
  const session = useAgentSession();
  const [draft, setDraft] = useState("");
  const available = new Set((tools ?? []).map((t) => t.name));
  const effective = { ...setup, toolNames: setup.toolNames.filter((t) => available.has(t)), gated: setup.gated.filter((t) => setup.toolNames.includes(t) && available.has(t)) };

  return (
    <div className="split agents">
      <div className="stack">
        <AgentSetupPanel setup={setup} onChange={setSetup} tools={tools ?? []} threadId={session.threadId} onNewThread={session.reset} />
        <AgentRuns onOpen={session.join} changed={session.turns.filter((t) => !t.streaming).length} />
      </div>
      <section className="panel console" aria-label="Conversation">
        <header>
          <h2>Conversation</h2>
          <span className="muted">{session.threadId ? `thread ${session.threadId.slice(0, 8)}` : "new thread"}</span>
        </header>
        <Transcript session={session} />
        <form
          className="composer"
          onSubmit={(e) => {
            e.preventDefault();
            if (!draft.trim()) return;
            session.send(draft.trim(), effective);
            setDraft("");
          }}
        >
          <textarea
            aria-label="Message"
            rows={2}
            placeholder={'Ask something, e.g. "What is 6 times 7?" or "Remember colour is blue"'}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <button type="submit" className="primary" disabled={session.busy || !draft.trim()}>
            {session.busy ? "Streaming…" : "Send"}
          </button>
        </form>
      </section>
    </div>
  );
}
