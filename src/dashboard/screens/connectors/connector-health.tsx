import { Badge } from "../../components/badges.tsx";
import type { Connector, ConnectorState } from "../../api/connectors.ts";

const TONE: Record<ConnectorState, "ok" | "bad" | "run" | "idle"> = {
  CONNECTED: "ok",
  CONNECTING: "run",
  DOWN: "bad",
  IDLE: "idle",
};

/** The answering instance's connection to the upstream: its state, since when and the last error on hover. */
export function HealthBadge({ health }: { health: Connector["health"] }) {
  const title = `${health.state.toLowerCase()} since ${health.since}${health.lastError ? `: ${health.lastError}` : ""}${health.failures ? ` (${health.failures} failures in a row)` : ""}`;
  return (
    <Badge tone={TONE[health.state]} title={title}>
      <span data-health={health.state}>{health.state.toLowerCase()}</span>
    </Badge>
  );
}
