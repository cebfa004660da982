import { App } from "../../src/app.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";

/** An app with the fake connector kind registered as a real plugin, and the kind's upstreams. */
export function fakeApp(): { app: App; fake: ReturnType<typeof fakeKinds> } {
  const fake = fakeKinds("fake");
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  return { app, fake };
}

/** A `ConnectorInput` for the fake kind over the upstream of the same name. */
export function fakeInput(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, kind: "fake", description: `the ${name} upstream`, settings: { upstream: name }, ...extra };
}

/** The fields every connector test reads. */
export const CONNECTOR = `name kind description settings version listingVersion refreshedAt refreshError
  tools { name upstreamName title description inputSchema annotations proposedTier tier tierAssigned idempotent enabled pauses timeoutSeconds retryPolicy { maxAttempts declaredOn } }
  refused { name reason } health { state failures lastError }`;

export const CHANGE = `connector listingVersion cause at added removed changed { name fields } broken { name kind tool reason }`;

export const PUT = `mutation($i: ConnectorInput!, $v: Int) { putConnector(input: $i, expectedVersion: $v) { connector { ${CONNECTOR} } change { ${CHANGE} } } }`;
