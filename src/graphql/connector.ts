import type { ConnectorInput, ToolDecision } from "../connectors/connector-record.ts";
import { builder } from "./builder.ts";
import { requireAdmin } from "./context.ts";
import { ConnectorChangeRef, ConnectorRef, ConnectorResultRef } from "./connector-types.ts";
import { closeWith } from "./stream.ts";

/**
 * Connectors over GraphQL (docs/connectors.md §12): thin over `runtime.connectors`, which
 * checks the caller (ADMIN only), the settings and the versions, and answers `ApiError`s
 * the edge maps. Each resolver asks `requireAdmin` too, so a lower caller is refused
 * before anything is read.
 */

const ConnectorInputRef = builder.inputType("ConnectorInput", {
  description: "A connector to store (docs/connectors.md §2).",
  fields: (t) => ({
    name: t.string({ required: true, description: "Its name: ^[A-Za-z0-9_-]{1,64}$." }),
    kind: t.string({ required: true, description: "A connector kind (mcp, openapi, a plugin's)." }),
    description: t.string({ description: "What it is for." }),
    settings: t.field({
      type: "JSONObject",
      required: true,
      description: 'The kind\'s settings; sealed ones ("headers", "env") must be "!ENV NAME" markers.',
    }),
    tools: t.field({
      type: "JSONObject",
      description: "Decisions by upstream tool name: { tier, retry, timeoutSeconds, enabled }.",
    }),
  }),
});

type ConnectorInputArg = {
  name: string;
  kind: string;
  description?: string | null;
  settings: Record<string, unknown>;
  tools?: Record<string, unknown> | null;
};

function toInput(i: ConnectorInputArg): ConnectorInput {
  return {
    name: i.name,
    kind: i.kind,
    ...(i.description != null ? { description: i.description } : {}),
    settings: i.settings,
    ...(i.tools != null ? { tools: i.tools as Record<string, ToolDecision> } : {}),
  };
}

const READ = "read connectors";
const WRITE = "write connectors";

builder.queryFields((t) => ({
  connectors: t.field({
    type: [ConnectorRef],
    description: "Every stored connector. ADMIN only.",
    resolve: (_r, _a, ctx) => ctx.runtime.connectors.list(requireAdmin(ctx, READ)),
  }),
  connector: t.field({
    type: ConnectorRef,
    nullable: true,
    description: "One stored connector; null when there is none. ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The connector's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.connectors.get(requireAdmin(ctx, READ), name),
  }),
}));

builder.mutationFields((t) => ({
  putConnector: t.field({
    type: ConnectorResultRef,
    description:
      "Creates (omit expectedVersion, or 0; CONFLICT when the name is taken) or replaces (expectedVersion must be the stored version, else CONFLICT) a connector: checks the settings, connects, lists the upstream and stores settings and listing together. Nothing is stored on a refusal. ADMIN only.",
    args: {
      input: t.arg({ type: ConnectorInputRef, required: true, description: "The connector." }),
      expectedVersion: t.arg.int({ description: "The version read before the change; omit to create." }),
    },
    resolve: (_r, { input, expectedVersion }, ctx) =>
      ctx.runtime.connectors.put(requireAdmin(ctx, WRITE), toInput(input), expectedVersion ?? undefined),
  }),
  refreshConnector: t.field({
    type: ConnectorResultRef,
    description:
      "Lists the upstream now: a new listing version and its change when the tools differ (change: null otherwise). ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The connector's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.connectors.refresh(requireAdmin(ctx, WRITE), name),
  }),
  deleteConnector: t.boolean({
    description:
      "Deletes a connector (its tools leave the surface); with expectedVersion, only if it is the stored version (else CONFLICT). ADMIN only.",
    args: {
      name: t.arg.string({ required: true, description: "The connector's name." }),
      expectedVersion: t.arg.int({ description: "The version read before the change." }),
    },
    resolve: (_r, { name, expectedVersion }, ctx) =>
      ctx.runtime.connectors.delete(requireAdmin(ctx, WRITE), name, expectedVersion ?? undefined),
  }),
}));

builder.subscriptionFields((t) => ({
  connectorChanged: t.field({
    type: ConnectorChangeRef,
    description:
      "Each new listing version of a connector (a put, a refresh, the upstream's list_changed, the periodic refresh), from any instance. ADMIN only.",
    args: { name: t.arg.string({ description: "Only this connector's changes." }) },
    subscribe: (_r, { name }, ctx) => {
      requireAdmin(ctx, READ);
      return closeWith(ctx, (signal) =>
        ctx.runtime.bus.subscribe("connectorChanged", {
          signal,
          bufferSize: 100,
          filter: (c) => name == null || c.connector === name,
        }),
      );
    },
    resolve: (c) => c,
  }),
}));
