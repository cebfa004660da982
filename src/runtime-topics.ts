import type { AgentLogEntry } from "./agent/events.ts";
import type { RunEventRecord } from "./dispatch/run-record.ts";
import type { SpanRecord } from "./extensions/builtin/spans.ts";
import type { PublishedInteraction } from "./interactions/interaction-store.ts";
import type { ConnectorChange } from "./connectors/connector-record.ts";
import { Bus, type BusOptions, type Topic, type Topics } from "./events/bus.ts";

/*
 * The topics the runtime carries on its bus, declared here rather than in the bus: the
 * bus is generic over its topic map, and this augments its default map (`Topics`), so
 * every holder of the runtime's `Bus` publishes and listens with these payloads typed.
 */
declare module "./events/bus.ts" {
  interface Topics {
    runEvent: RunEventRecord;
    /** One entry of an agent run's log (docs/agent-stream.md). */
    agentEvent: AgentLogEntry;
    /**
     * This instance's surface changed (it is rebuilt already): never carried across
     * instances, so a subscriber that lists the surface on it never gets the list from
     * before the change (each instance fires its own once it has applied a change).
     */
    toolsChanged: { at: string; version?: number };
    keyRevoked: { keyId: string };
    runCancel: { runId: string };
    /** Cancel the agent run `runId`, for the instance that runs it (docs/agent-stream.md §4.1). */
    agentRunCancel: { runId: string };
    /** Presets or the active manifest changed on `instanceId` (stored surface `version`); others reload them. */
    configChanged: { instanceId: string; version?: number };
    span: SpanRecord;
    /** A message an MCP client posted on a session, for the instance whose request it concerns (docs/mcp.md). */
    mcpClientMessage: { sessionId: string; message: unknown };
    /** An MCP session was deleted; instances drop it from their caches. */
    mcpSessionClosed: { sessionHash: string };
    /** An interaction as stored (its answer left out), when it opens and when it closes. */
    interaction: PublishedInteraction;
    /**
     * A parked MCP upstream call's relay (docs/connectors.md §8): an answer or a cancel for
     * the instance `to` that holds the call, or its `ack` or `outcome` for the resumer. A
     * wake-up only: the payloads themselves are in the shared store, which both sides also poll.
     */
    mcpElicitation: {
      to: string;
      pendingId: string;
      elicitationId: string;
      what: "answer" | "cancel" | "ack" | "outcome";
    };
    /** A circuit breaker opened (docs/flow-control.md §4): every instance reads its state again. */
    breakerOpened: { name: string };
    /** A connector's listing has a new version (docs/connectors.md §7), on every instance. */
    connectorChanged: ConnectorChange;
  }
}

/** The runtime's topics that stay in this process even when Redis is configured. */
export const LOCAL_TOPICS: readonly Topic[] = ["toolsChanged"];

/**
 * The runtime's bus: every bus that carries the runtime's topics is made here, so none
 * shares a local topic across instances by forgetting {@link LOCAL_TOPICS}.
 */
export function runtimeBus(options: Omit<BusOptions<Topics>, "localTopics">): Bus {
  return new Bus({ ...options, localTopics: LOCAL_TOPICS });
}
