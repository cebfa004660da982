import type { Manifest, ManifestDocument, ManifestVersion } from "../manifests/manifest.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const ManifestVersionRef = builder.objectRef<ManifestVersion>("ManifestVersion").implement({
  fields: (t) => ({
    version: t.exposeInt("version"),
    description: t.string({ nullable: true, resolve: (v) => v.description }),
    document: t.field({ type: "JSONObject", resolve: (v) => v.document as Record<string, unknown> }),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.createdAt }),
  }),
});

export const ManifestRef = builder.objectRef<Manifest>("Manifest").implement({
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.string({ nullable: true, resolve: (m) => m.description }),
    version: t.exposeInt("version"),
    active: t.exposeBoolean("active"),
    document: t.field({ type: "JSONObject", description: "tools, extensions, extensionsModules, retry", resolve: (m) => m.document as Record<string, unknown> }),
    history: t.field({ type: [ManifestVersionRef], description: "Every stored version, oldest first.", resolve: (m, _a, ctx) => ctx.runtime.manifests.history(m.name) }),
    createdAt: t.field({ type: "DateTime", resolve: (m) => m.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (m) => m.updatedAt }),
  }),
});

const ManifestInputRef = builder.inputType("ManifestInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    document: t.field({ type: "JSONObject", required: true }),
  }),
});

builder.queryFields((t) => ({
  manifests: t.field({
    type: [ManifestRef],
    resolve: async (_r, _a, ctx) => {
      requireCaller(ctx);
      return (await ctx.runtime.manifests.list()).map((m) => servedActive(m, ctx.surface.activeManifest));
    },
  }),
  manifest: t.field({
    type: ManifestRef,
    nullable: true,
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_r, { name }, ctx) => {
      requireCaller(ctx);
      const m = await ctx.runtime.manifests.get(name);
      return m && servedActive(m, ctx.surface.activeManifest);
    },
  }),
  activeManifest: t.field({
    type: ManifestRef,
    nullable: true,
    description: "The manifest the tools of this response come from (the surface this server serves).",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.surface.activeManifest;
    },
  }),
}));

builder.mutationFields((t) => ({
  putManifest: t.field({
    type: ManifestRef,
    description: "Creates (omit expectedVersion) or updates (expectedVersion must match) a manifest. Admin only.",
    args: { input: t.arg({ type: ManifestInputRef, required: true }), expectedVersion: t.arg.int() },
    resolve: (_r, { input, expectedVersion }, ctx) =>
      ctx.runtime.manifests.put({ name: input.name, description: input.description ?? null, document: input.document as ManifestDocument }, expectedVersion, requireCaller(ctx)),
  }),
  activateManifest: t.field({
    type: ManifestRef,
    description: "Makes this the one active manifest; the surface changes atomically and toolsChanged fires. Admin only.",
    args: { name: t.arg.string({ required: true }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.manifests.activate(name, requireCaller(ctx)),
  }),
  deleteManifest: t.boolean({
    description: "Deletes a manifest that is not active. Admin only.",
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_r, { name }, ctx) => {
      await ctx.runtime.manifests.delete(name, requireCaller(ctx));
      return true;
    },
  }),
}));

/** A stored manifest with `active` as the response's surface has it, so that it agrees with `tools` and `activeManifest`. */
function servedActive(m: Manifest, active: Manifest | null): Manifest {
  return { ...m, active: m.name === active?.name };
}
