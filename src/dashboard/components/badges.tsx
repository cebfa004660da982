import type { ReactNode } from "react";

/** The colour family of a status, tier or origin badge. */
type Tone = "ok" | "bad" | "warn" | "run" | "accent" | "idle";

const STATUS: Record<string, Tone> = {
  QUEUED: "accent",
  RUNNING: "run",
  OUTCOME_UNKNOWN: "warn",
  SUCCEEDED: "ok",
  FAILED: "bad",
  PARKED: "warn",
  CANCELLED: "idle",
  PENDING: "warn",
  ANSWERED: "ok",
  EXPIRED: "bad",
  INTERRUPTED: "warn",
  SUSPENDED: "warn",
  ASKED: "warn",
  RESUMED: "idle",
};

const TIER: Record<string, Tone> = { READ: "idle", WRITE: "accent", FENCED: "warn", SECRET: "bad" };

export function Badge({ tone = "idle", children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge ${tone}`} title={title}>
      {children}
    </span>
  );
}

/** How a status reads where its name alone would not say it. */
const LABEL: Record<string, string> = { QUEUED: "QUEUED", OUTCOME_UNKNOWN: "OUTCOME UNKNOWN" };
const TITLE: Record<string, string> = {
  QUEUED: "waiting for an instance with capacity to run it",
  OUTCOME_UNKNOWN: "its instance stopped while it ran; its outcome is unknown",
};

/** A run, span, interaction or agent-run status; RUNNING pulses. */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={STATUS[status] ?? "idle"} title={TITLE[status]}>
      <span data-status={status}>{LABEL[status] ?? status}</span>
    </Badge>
  );
}

export function TierBadge({ tier }: { tier: string }) {
  return (
    <Badge tone={TIER[tier] ?? "idle"} title={`tier ${tier.toLowerCase()}`}>
      {tier.toLowerCase()}
    </Badge>
  );
}

export function OriginBadge({ origin }: { origin: string }) {
  return <Badge title="origin">{origin.toLowerCase()}</Badge>;
}
