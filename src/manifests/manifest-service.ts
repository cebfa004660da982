import type { Caller } from "../auth/roles.ts";
import { requireAdmin } from "../auth/ownership.ts";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { ApiError, describeIssues, type Issue } from "../errors.ts";
import { checkMarkerWrite } from "../secrets/markers.ts";
import type { Manifest, ManifestDocument, ManifestVersion } from "./manifest.ts";
import { unstorableIssues } from "../db/storable.ts";
import { writeSurface } from "../registry/surface-version.ts";
import { documentIssues, importFreeIssues, type DocumentContext } from "./validate-document.ts";

/** A manifest write. */
export interface ManifestInput {
  name: string;
  description?: string | null;
  document: ManifestDocument;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
type Row = Awaited<ReturnType<Db["manifest"]["findUniqueOrThrow"]>>;

/** A stored manifest row as every door serves it. */
export function toManifest(r: Row): Manifest {
  return {
    name: r.name,
    description: r.description,
    version: r.version,
    active: r.active,
    document: r.document as ManifestDocument,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/**
 * Stored, versioned manifests. Writes and activation are admin-only and validated before
 * anything is stored; every version is kept. Every write bumps the stored surface version
 * in its transaction (`registry/surface-version.ts`), and `onChanged` re-applies the
 * active manifest to the surface (here at once, and on every instance).
 */
export class ManifestService {
  constructor(
    private readonly db: Db,
    private readonly context: () => Promise<DocumentContext>,
    private readonly onChanged: () => Promise<void>,
  ) {}

  async list(): Promise<Manifest[]> {
    return (await this.db.manifest.findMany({ orderBy: { name: "asc" } })).map(toManifest);
  }

  async get(name: string): Promise<Manifest | null> {
    const r = await this.db.manifest.findUnique({ where: { name } });
    return r ? toManifest(r) : null;
  }

  async active(): Promise<Manifest | null> {
    const r = await this.db.manifest.findFirst({ where: { active: true } });
    return r ? toManifest(r) : null;
  }

  async history(name: string): Promise<ManifestVersion[]> {
    const rows = await this.db.manifestVersion.findMany({ where: { manifestName: name }, orderBy: { version: "asc" } });
    return rows.map((v) => ({
      version: v.version,
      description: v.description,
      document: v.document as ManifestDocument,
      createdAt: v.createdAt.toISOString(),
    }));
  }

  /**
   * Validates the whole document first, then creates (no expectedVersion) or updates
   * (expectedVersion must match). Validate first, import last: the checks that need no
   * import (role, name, shape, unstorable text, the module allow-list, the version) run
   * first, and a write refused by any of them imports nothing. Only then are the allowed
   * modules imported, because binding the extensions validates their settings.
   */
  async put(input: ManifestInput, expectedVersion: number | null | undefined, caller: Caller): Promise<Manifest> {
    requireAdmin(caller, "write manifests");
    const context = await this.context();
    checkMarkerWrite(input.document, "/document", { admin: true, deny: context.secrets.deny });
    const early: Issue[] = [];
    if (typeof input.name !== "string" || !NAME.test(input.name))
      early.push({ path: "/name", message: "must match ^[A-Za-z0-9_.-]{1,64}$" });
    early.push(
      ...unstorableIssues(input.description, "/description"),
      ...unstorableIssues(input.document, "/document"),
    );
    early.push(...importFreeIssues(input.document, context));
    if (early.length) throw ApiError.badInput(`invalid manifest "${input.name}": ${describeIssues(early)}`, early);
    const current = await this.get(input.name);
    if (!current && expectedVersion != null && expectedVersion !== 0)
      throw new ApiError(
        "NOT_FOUND",
        `no manifest named "${input.name}" (expectedVersion ${expectedVersion} was given)`,
      );
    if (current && expectedVersion != null && current.version !== expectedVersion)
      throw stale(input.name, current.version, expectedVersion);
    const issues = await documentIssues(input.document, context);
    if (issues.length) throw ApiError.badInput(`invalid manifest "${input.name}": ${describeIssues(issues)}`, issues);
    const description = input.description ?? null;
    const document = input.document as never;

    if (!current) {
      try {
        await writeSurface(this.db, async (tx) => {
          await tx.manifest.create({ data: { name: input.name, description, document, version: 1 } });
          await tx.manifestVersion.create({ data: { manifestName: input.name, version: 1, description, document } });
        });
      } catch (e) {
        if (isUniqueViolation(e))
          throw new ApiError(
            "CONFLICT",
            `manifest "${input.name}" was created concurrently; re-read it and pass expectedVersion`,
          );
        throw e;
      }
    } else {
      if (expectedVersion == null)
        throw new ApiError(
          "CONFLICT",
          `manifest "${input.name}" exists at version ${current.version}; pass expectedVersion to update it`,
          [{ path: "/expectedVersion", message: "is required to update" }],
        );
      const next = expectedVersion + 1;
      try {
        await writeSurface(this.db, async (tx) => {
          const { count } = await tx.manifest.updateMany({
            where: { name: input.name, version: expectedVersion },
            data: { description, document, version: next },
          });
          if (count === 0) throw new StaleVersion();
          await tx.manifestVersion.create({ data: { manifestName: input.name, version: next, description, document } });
        });
      } catch (e) {
        if (e instanceof StaleVersion || isUniqueViolation(e))
          throw stale(input.name, (await this.get(input.name))?.version, expectedVersion);
        throw e;
      }
      if (current.active) await this.onChanged();
    }
    return (await this.get(input.name))!;
  }

  /** Makes `name` the one active manifest, atomically, and re-applies the surface. */
  async activate(name: string, caller: Caller): Promise<Manifest> {
    requireAdmin(caller, "activate manifests");
    const target = await this.get(name);
    if (!target) throw new ApiError("NOT_FOUND", `no manifest named "${name}"`);
    const issues = await documentIssues(target.document, await this.context());
    if (issues.length)
      throw ApiError.badInput(`manifest "${name}" no longer validates: ${describeIssues(issues)}`, issues);
    // Under READ COMMITTED two concurrent "deactivate all, activate one" could each miss
    // the other's activation: the version bump that opens the write holds its row lock to
    // the commit, so they run one after the other (SQLite serialises writers anyway).
    const activated = await writeSurface(this.db, async (tx) => {
      await tx.manifest.updateMany({ where: { active: true }, data: { active: false } });
      const { count } = await tx.manifest.updateMany({ where: { name }, data: { active: true } });
      if (!count) throw new ApiError("NOT_FOUND", `no manifest named "${name}" (it was deleted concurrently)`);
      return tx.manifest.findUniqueOrThrow({ where: { name } });
    });
    await this.onChanged();
    // As this activation left it: a later activation may already have replaced it.
    return toManifest(activated);
  }

  /** Deletes a manifest and its history; the active one is refused. */
  async delete(name: string, caller: Caller): Promise<void> {
    requireAdmin(caller, "delete manifests");
    const current = await this.get(name);
    if (!current) throw new ApiError("NOT_FOUND", `no manifest named "${name}"`);
    if (current.active)
      throw new ApiError("CONFLICT", `manifest "${name}" is active; activate another one before deleting it`);
    await writeSurface(this.db, async (tx) => {
      const { count } = await tx.manifest.deleteMany({ where: { name, active: false } });
      if (!count)
        throw new ApiError("CONFLICT", `manifest "${name}" was activated or deleted concurrently; re-read it`);
    });
  }
}

class StaleVersion extends Error {}

function stale(name: string, current: number | undefined, expected: number): ApiError {
  return new ApiError(
    "CONFLICT",
    `manifest "${name}" is at version ${current}, not the expected ${expected}; re-read it and retry`,
    [{ path: "/expectedVersion", message: `is stale (current ${current})` }],
  );
}
