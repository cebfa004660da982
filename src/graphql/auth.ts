import type { Caller } from "../auth/roles.ts";
import { builder } from "./builder.ts";
import { requireAdmin } from "./context.ts";
import { RoleEnum } from "./enums.ts";

// Wrapped: a null parent would make the non-null `viewer` field fail for a caller without access.
const ViewerRef = builder.objectRef<{ caller: Caller | null }>("Viewer").implement({
  description: "Who the API sees. `role` is null for an anonymous caller without access.",
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: "The caller's role; the anonymous caller's is TAI_ANONYMOUS_ROLE.",
      resolve: ({ caller }) => caller?.role ?? null,
    }),
    keyName: t.string({
      nullable: true,
      description: "The API key's name, or an access token's principal `oidc:<issuer>#<sub>`; null when anonymous.",
      resolve: ({ caller }) => caller?.keyName ?? null,
    }),
    authenticated: t.boolean({
      description: "True when the caller sent a valid API key or access token.",
      resolve: ({ caller }) => Boolean(caller?.keyId),
    }),
    issuer: t.string({
      nullable: true,
      description: "The access token's issuer (docs/security-model.md §1.2); null for a key or anonymous caller.",
      resolve: ({ caller }) => caller?.subject?.issuer ?? null,
    }),
    subject: t.string({
      nullable: true,
      description: "The access token's subject (`sub`); null for a key or anonymous caller.",
      resolve: ({ caller }) => caller?.subject?.sub ?? null,
    }),
    expiresAt: t.string({
      nullable: true,
      description: "When the access token expires (ISO 8601); null for a key or anonymous caller.",
      resolve: ({ caller }) => (caller?.subject ? new Date(caller.subject.expiresAt).toISOString() : null),
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    description: "Who the API sees: the key sent (README, Authentication), or the anonymous caller.",
    resolve: (_r, _a, ctx) => ({ caller: ctx.caller }),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.string({
    description: "Creates a key and returns it. It is shown once: only its hash is stored. Admin only.",
    args: {
      name: t.arg.string({ required: true, description: "A unique name; never reused." }),
      role: t.arg({ type: RoleEnum, required: true, description: "What the key may do." }),
      rate: t.arg({
        type: "JSONObject",
        description:
          "A rate over every dispatch of the key, across tools: { tokens, intervalSeconds, burst } (docs/flow-control.md §2); past it RATE_LIMITED.",
      }),
    },
    resolve: (_r, { name, role, rate }, ctx) => {
      requireAdmin(ctx, "create API keys");
      return ctx.runtime.keys.create(name, role, undefined, (rate ?? undefined) as never);
    },
  }),
  setApiKeyRate: t.boolean({
    description:
      "Sets a key's own rate over every dispatch it makes, across tools (docs/flow-control.md §2), or removes it with null; every instance applies it within 1 s. Admin only.",
    args: {
      name: t.arg.string({ required: true, description: "The key's name." }),
      rate: t.arg({
        type: "JSONObject",
        description: "{ tokens, intervalSeconds, burst }; null: no rate of its own.",
      }),
    },
    resolve: async (_r, { name, rate }, ctx) => {
      requireAdmin(ctx, "set API keys' rates");
      await ctx.runtime.keys.setRate(name, (rate ?? null) as never);
      return true;
    },
  }),
  revokeApiKey: t.boolean({
    description: "Revokes a key; its open sockets are closed. Admin only.",
    args: { name: t.arg.string({ required: true, description: "The key's name." }) },
    resolve: async (_r, { name }, ctx) => {
      requireAdmin(ctx, "revoke API keys");
      await ctx.runtime.keys.revoke(name);
      return true;
    },
  }),
}));
