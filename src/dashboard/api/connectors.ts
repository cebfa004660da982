import { graphql, type TadaDocumentNode } from "tai42/client";
import type { Tier } from "./viewer.ts";

/*
 * The connectors API (docs/connectors.md §12), ADMIN only. The shapes are written by hand
 * from §12; the documents go through the same client as every other screen's.
 */

export type ConnectorState = "IDLE" | "CONNECTING" | "CONNECTED" | "DOWN";

export interface ConnectorTool {
  /** The surface name `<connector>_<tool>`. */
  name: string;
  upstreamName: string;
  title: string | null;
  description: string;
  proposedTier: Tier;
  tier: Tier;
  tierAssigned: boolean;
  idempotent: boolean;
  enabled: boolean;
  pauses: boolean;
  timeoutSeconds: number | null;
  retryPolicy: {
    maxAttempts: number;
    idempotent: boolean;
    retryableKinds: string[];
    backoff: { initialSeconds: number; multiplier: number; capSeconds: number };
  } | null;
}

export interface ConnectorChange {
  connector: string;
  listingVersion: number;
  cause: "PUT" | "REFRESH" | "LIST_CHANGED" | "POLL";
  at: string;
  added: string[];
  removed: string[];
  changed: { name: string; fields: string[] }[];
  broken: { name: string; kind: string; tool: string; reason: string }[];
}

export interface Connector {
  name: string;
  kind: string;
  description: string;
  settings: Record<string, unknown>;
  version: number;
  listingVersion: number;
  tools: ConnectorTool[];
  refused: { name: string; reason: string }[];
  refreshedAt: string | null;
  refreshError: string | null;
  health: { state: ConnectorState; since: string; lastError: string | null; failures: number };
  changes: ConnectorChange[];
}

/** A tier as a stored decision spells it (`read`…), where GraphQL's `Tier` is `READ`…. */
export type DecisionTier = Lowercase<Tier>;

/** An ADMIN's decision about one upstream tool (docs/connectors.md §4–5). */
export interface ToolDecision {
  tier?: DecisionTier;
  retry?: {
    maxAttempts: number;
    idempotent: boolean;
    retryable?: string[];
    backoff?: { initialSeconds: number; multiplier: number; capSeconds: number };
  };
  timeoutSeconds?: number;
  enabled?: boolean;
}

export interface ConnectorInput {
  name: string;
  kind: string;
  description?: string;
  settings: Record<string, unknown>;
  tools?: Record<string, ToolDecision>;
}

export interface ConnectorResult {
  connector: Connector;
  /** Null when the listing did not change. */
  change: ConnectorChange | null;
}

/** A document whose result and variables are typed here (by hand, from §12). */
function typed<D, V>(text: string): TadaDocumentNode<D, V> {
  return (graphql as unknown as (text: string) => TadaDocumentNode<D, V>)(text);
}

const CHANGE = `connector listingVersion cause at added removed changed { name fields } broken { name kind tool reason }`;
const CONNECTOR = `
  name kind description settings version listingVersion refreshedAt refreshError
  health { state since lastError failures }
  refused { name reason }
  tools {
    name upstreamName title description proposedTier tier tierAssigned idempotent enabled pauses timeoutSeconds
    retryPolicy { maxAttempts idempotent retryableKinds backoff { initialSeconds multiplier capSeconds } }
  }
  changes(last: 10) { ${CHANGE} }
`;

export const ConnectorsQuery = typed<{ connectors: Connector[] }, Record<string, never>>(
  `query Connectors { connectors { ${CONNECTOR} } }`,
);

/** Creates (no `expectedVersion`) or replaces the version the editor opened (else CONFLICT). */
export const PutConnectorMutation = typed<
  { putConnector: ConnectorResult },
  { input: ConnectorInput; expectedVersion?: number | null }
>(
  `mutation PutConnector($input: ConnectorInput!, $expectedVersion: Int) { putConnector(input: $input, expectedVersion: $expectedVersion) { connector { ${CONNECTOR} } change { ${CHANGE} } } }`,
);

export const RefreshConnectorMutation = typed<{ refreshConnector: ConnectorResult }, { name: string }>(
  `mutation RefreshConnector($name: String!) { refreshConnector(name: $name) { connector { ${CONNECTOR} } change { ${CHANGE} } } }`,
);

export const DeleteConnectorMutation = typed<
  { deleteConnector: boolean },
  { name: string; expectedVersion?: number | null }
>(
  `mutation DeleteConnector($name: String!, $expectedVersion: Int) { deleteConnector(name: $name, expectedVersion: $expectedVersion) }`,
);

/**
 * The ADMIN's decisions as the served tools show them, by upstream name: the assigned
 * tier, a tool kept off the surface, a declared retry policy and timeout. A put sends the
 * whole map, so what is not changed is sent back as it was.
 */
export function decisionsOf(connector: Connector): Record<string, ToolDecision> {
  const out: Record<string, ToolDecision> = {};
  for (const t of connector.tools) {
    const d: ToolDecision = {};
    if (t.tierAssigned) d.tier = t.tier.toLowerCase() as DecisionTier;
    if (!t.enabled) d.enabled = false;
    if (t.timeoutSeconds !== null) d.timeoutSeconds = t.timeoutSeconds;
    if (t.retryPolicy) {
      const { maxAttempts, idempotent, retryableKinds, backoff } = t.retryPolicy;
      d.retry = { maxAttempts, idempotent, retryable: retryableKinds, backoff };
    }
    if (Object.keys(d).length) out[t.upstreamName] = d;
  }
  return out;
}

/** The put that keeps a connector as stored and changes one tool's tier (`null`: back to the proposal). */
export function withTier(connector: Connector, upstreamName: string, tier: Tier | null): ConnectorInput {
  const tools = decisionsOf(connector);
  const { tier: _, ...rest } = tools[upstreamName] ?? {};
  tools[upstreamName] = tier ? { ...rest, tier: tier.toLowerCase() as DecisionTier } : rest;
  if (!Object.keys(tools[upstreamName]).length) delete tools[upstreamName];
  return {
    name: connector.name,
    kind: connector.kind,
    description: connector.description,
    settings: connector.settings,
    tools,
  };
}

/** Whether a change named anything (a put that listed the same tools has none). */
export function isEmptyChange(c: ConnectorChange): boolean {
  return !c.added.length && !c.removed.length && !c.changed.length && !c.broken.length;
}

/** Each new listing version of any connector, from any instance: the screen reloads on it. */
export const ConnectorChangedSubscription = typed<{ connectorChanged: ConnectorChange }, Record<string, never>>(
  `subscription ConnectorChanged { connectorChanged { ${CHANGE} } }`,
);
