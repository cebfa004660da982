import type { Caller } from "../auth/roles.ts";
import { builder } from "./builder.ts";
import { requireAdmin } from "./context.ts";
import { RoleEnum } from "./enums.ts";

// Wrapped: a null parent would make the non-null `viewer` field fail for a caller without access.
const ViewerRef = builder.objectRef<{ caller: Caller | null }>("Viewer").implement({
  description: "Who the API sees. `role` is null for an anonymous caller without access.",
  fields: (t) => ({
    role: t.field({ type: RoleEnum, nullable: true, resolve: ({ caller }) => caller?.role ?? null }),
    keyName: t.string({ nullable: true, resolve: ({ caller }) => caller?.keyName ?? null }),
    authenticated: t.boolean({ resolve: ({ caller }) => Boolean(caller?.keyId) }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({ type: ViewerRef, resolve: (_r, _a, ctx) => ({ caller: ctx.caller }) }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.string({
    description: "Creates a key and returns it. It is shown once: only its hash is stored. Admin only.",
    args: { name: t.arg.string({ required: true }), role: t.arg({ type: RoleEnum, required: true }) },
    resolve: (_r, { name, role }, ctx) => {
      requireAdmin(ctx, "create API keys");
      return ctx.runtime.keys.create(name, role);
    },
  }),
  revokeApiKey: t.boolean({
    description: "Revokes a key; its open sockets are closed. Admin only.",
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_r, { name }, ctx) => {
      requireAdmin(ctx, "revoke API keys");
      await ctx.runtime.keys.revoke(name);
      return true;
    },
  }),
}));
