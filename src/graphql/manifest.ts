import type { Manifest, ManifestDocument, ManifestVersion } from "../manifests/manifest.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const ManifestVersionRef = builder.objectRef<ManifestVersion>("ManifestVersion").implement({
  description: "One stored version of a manifest.",
  fields: (t) => ({
    version: t.exposeInt("version", { description: "1 for the first, +1 for each next." }),
    description: t.string({ nullable: true, description: "Its description then.", resolve: (v) => v.description }),
    document: t.field({
      type: "JSONObject",
      description: "Its document then.",
      resolve: (v) => v.document as Record<string, unknown>,
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was stored.", resolve: (v) => v.createdAt }),
  }),
});

export const ManifestRef = builder.objectRef<Manifest>("Manifest").implement({
  description: "A named composition of the surface: tools, extensions, modules and retry declarations.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Its name." }),
    description: t.string({ nullable: true, description: "What it is for.", resolve: (m) => m.description }),
    version: t.exposeInt("version", { description: "The current version; putManifest's expectedVersion." }),
    active: t.exposeBoolean("active", { description: "True for the one manifest the surface is built from." }),
    document: t.field({
      type: "JSONObject",
      description: "tools, extensions, extensionsModules, retry",
      resolve: (m) => m.document as Record<string, unknown>,
    }),
    history: t.field({
      type: [ManifestVersionRef],
      description: "Every stored version, oldest first.",
      resolve: (m, _a, ctx) => ctx.runtime.manifests.history(m.name),
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was created.", resolve: (m) => m.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "When it last changed.", resolve: (m) => m.updatedAt }),
  }),
});

const ManifestInputRef = builder.inputType("ManifestInput", {
  description: "A manifest to store.",
  fields: (t) => ({
    name: t.string({ required: true, description: "Its name." }),
    description: t.string({ description: "What it is for." }),
    document: t.field({
      type: "JSONObject",
      required: true,
      description: "tools, extensions, extensionsModules, retry (docs/composing-the-surface.md).",
    }),
  }),
});

builder.queryFields((t) => ({
  manifests: t.field({
    type: [ManifestRef],
    description: "Every stored manifest.",
    resolve: async (_r, _a, ctx) => {
      requireCaller(ctx);
      return (await ctx.runtime.manifests.list()).map((m) => servedActive(m, ctx.surface.activeManifest));
    },
  }),
  manifest: t.field({
    type: ManifestRef,
    nullable: true,
    description: "One stored manifest; null when there is none.",
    args: { name: t.arg.string({ required: true, description: "The manifest's name." }) },
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
    args: {
      input: t.arg({ type: ManifestInputRef, required: true, description: "The manifest." }),
      expectedVersion: t.arg.int({ description: "The version read before the change; omit to create." }),
    },
    resolve: (_r, { input, expectedVersion }, ctx) =>
      ctx.runtime.manifests.put(
        { name: input.name, description: input.description ?? null, document: input.document as ManifestDocument },
        expectedVersion,
        requireCaller(ctx),
      ),
  }),
  activateManifest: t.field({
    type: ManifestRef,
    description:
      "Makes this the one active manifest; the surface changes atomically and toolsChanged fires. Admin only.",
    args: { name: t.arg.string({ required: true, description: "The manifest's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.manifests.activate(name, requireCaller(ctx)),
  }),
  deleteManifest: t.boolean({
    description: "Deletes a manifest that is not active. Admin only.",
    args: { name: t.arg.string({ required: true, description: "The manifest's name." }) },
    resolve: async (_r, { name }, ctx) => {
      await ctx.runtime.manifests.delete(name, requireCaller(ctx));
      return true;
    },
  }),
}));

/**
 * A stored manifest with `active` as the response's surface has it, so that it agrees with `tools` and
 * `activeManifest`.
 */
function servedActive(m: Manifest, active: Manifest | null): Manifest {
  return { ...m, active: m.name === active?.name };
}
