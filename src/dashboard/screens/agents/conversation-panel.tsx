import type { StudioPlan } from "../../api/agent-input.ts";
import { shortId } from "../../components/time.tsx";
import { Transcript } from "./transcript.tsx";
import type { AgentSession } from "./use-agent-session.ts";

/**
 * The Studio's conversation: the thread's transcript and the composer, a message box, or a note when the agent takes
 * no message; submitting it runs the agent when `ready`.
 */
export function ConversationPanel({
  session,
  agentName,
  plan,
  draft,
  onDraft,
  ready,
  onSubmit,
}: {
  session: AgentSession;
  agentName: string | undefined;
  plan: StudioPlan | null;
  draft: string;
  onDraft(draft: string): void;
  ready: boolean;
  onSubmit(): void;
}) {
  return (
    <section className="panel console" aria-label="Conversation">
      <header>
        <h2>Conversation</h2>
        <span className="muted">{session.threadId ? `thread ${shortId(session.threadId)}` : "new thread"}</span>
      </header>
      <Transcript session={session} />
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) onSubmit();
        }}
      >
        {plan && !plan.message ? (
          <p className="muted composer-note">
            <span className="mono">{agentName}</span> takes no message:{" "}
            {plan.form ? "fill in its input on the left, then run it." : "run it as it is."}
          </p>
        ) : (
          <textarea
            aria-label="Message"
            rows={2}
            placeholder={'Ask something, e.g. "What is 6 times 7?" or "Remember colour is blue"'}
            value={draft}
            onChange={(e) => onDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
        )}
        <button type="submit" className="primary" disabled={!ready}>
          {session.busy ? "Streaming…" : plan && !plan.message ? "Run" : "Send"}
        </button>
      </form>
    </section>
  );
}
