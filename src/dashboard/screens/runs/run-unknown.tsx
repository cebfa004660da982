import { useState } from "react";
import { ErrorNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { useClient, useConnection } from "../../connection.tsx";
import { RetryRunMutation, SETTLED_STATUSES, SettleRunMutation, type SettledStatus } from "../../api/run-operator.ts";
import type { ToolRun } from "../../api/runs.ts";
import { useAction } from "../../api/use-action.ts";

type Step = "idle" | "retry" | "settle";

/**
 * A run whose outcome is unknown (OUTCOME_UNKNOWN): why, and the operator's actions: retry it (queued again under the
 * same id) or settle it with the outcome established elsewhere, each confirmed first. The server allows them to the
 * run's owner or an ADMIN, the callers who may see the run: a caller with a role who sees it is offered them, and a
 * refusal is shown.
 */
export function RunUnknown({ run, onDone }: { run: ToolRun; onDone(): void }) {
  const client = useClient();
  const { viewer } = useConnection();
  const [step, setStep] = useState<Step>("idle");
  const [status, setStatus] = useState<SettledStatus>("FAILED");
  const [message, setMessage] = useState("");
  const { busy, error, run: act } = useAction();
  const done = () => {
    setStep("idle");
    onDone();
  };
  const retry = () => act(async () => (await client.request(RetryRunMutation, { id: run.id }), done()));
  const settle = () =>
    act(
      async () => (await client.request(SettleRunMutation, { id: run.id, status, message: message || null }), done()),
    );
  return (
    <Panel title="Outcome unknown" heading={<h2>Its outcome is unknown</h2>}>
      <div className="stack" data-testid="run-unknown">
        <p>
          Its instance stopped while it ran; its outcome is unknown: the tool&apos;s body may or may not have taken
          effect, and it was not run again on its own. Check what it did, then retry it or settle it.
        </p>
        <ErrorNote error={error} />
        {viewer?.role && step === "idle" && (
          <div className="row">
            <button onClick={() => setStep("retry")}>Retry…</button>
            <button onClick={() => setStep("settle")}>Settle…</button>
          </div>
        )}
        {step === "retry" && (
          <div className="note warn stack">
            <span>Run it again, as its next attempt under the same id? Its body may take effect twice.</span>
            <div className="row">
              <button className="primary" onClick={() => void retry()} disabled={busy}>
                {busy ? "Retrying…" : "Confirm retry"}
              </button>
              <button className="link" onClick={() => setStep("idle")} disabled={busy}>
                Back
              </button>
            </div>
          </div>
        )}
        {step === "settle" && (
          <SettleForm
            status={status}
            message={message}
            busy={busy}
            onStatus={setStatus}
            onMessage={setMessage}
            onConfirm={() => void settle()}
            onBack={() => setStep("idle")}
          />
        )}
      </div>
    </Panel>
  );
}

/** The settle step: the outcome and message the operator established, confirmed before it is sent. */
function SettleForm(props: {
  status: SettledStatus;
  message: string;
  busy: boolean;
  onStatus(s: SettledStatus): void;
  onMessage(m: string): void;
  onConfirm(): void;
  onBack(): void;
}) {
  const { status, message, busy, onStatus, onMessage, onConfirm, onBack } = props;
  return (
    <div className="note warn stack">
      <label className="field-inline">
        <span>Outcome</span>
        <select aria-label="Settled outcome" value={status} onChange={(e) => onStatus(e.target.value as SettledStatus)}>
          {SETTLED_STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label className="field-inline">
        <span>Message</span>
        <input
          aria-label="Settle message"
          value={message}
          onChange={(e) => onMessage(e.target.value)}
          placeholder="what was established"
        />
      </label>
      <span>End the run {status} for good? This cannot be undone.</span>
      <div className="row">
        <button className="primary" onClick={onConfirm} disabled={busy}>
          {busy ? "Settling…" : "Confirm settle"}
        </button>
        <button className="link" onClick={onBack} disabled={busy}>
          Back
        </button>
      </div>
    </div>
  );
}
