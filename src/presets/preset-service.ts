import { isDefinitionError } from "../definition-error.ts";
import { inScope, outOfScope } from "../auth/key-scope.ts";
import type { Caller } from "../auth/roles.ts";
import { isAdmin, mayAuthorOver, mayWritePresets } from "../auth/tiers.ts";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, describeIssues, type Issue } from "../errors.ts";
import type { Surface } from "../registry/surface.ts";
import { writeSurface } from "../registry/surface-version.ts";
import { limitsIssues, resolveLimits, type LimitsInit } from "../limits/limits.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "../retry/policy.ts";
import { checkMarkerWrite, hasMarker } from "../secrets/markers.ts";
import type { ManifestDocument } from "../manifests/manifest.ts";
import { namedAt } from "../manifests/manifest-names.ts";
import { bakedIssues } from "./baked-issues.ts";
import type { PresetBinding } from "./preset-binding.ts";
import { chainBindIssues, dependantIssues } from "./preset-dependants.ts";
import type { Preset } from "./preset.ts";

/** A preset write, as every door states it. */
export interface PresetInput {
  name: string;
  description: string;
  baseTool: string;
  fixedKwargs: Record<string, unknown>;
  retryPolicy?: RetryPolicyInit | null;
  /**
   * Limits on the preset (docs/flow-control.md §2): an ADMIN's to set or clear (null); left out, an update keeps them.
   */
  limits?: LimitsInit | null;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Row = Awaited<ReturnType<Db["preset"]["findUniqueOrThrow"]>>;

export function toPreset(row: Row): Preset {
  return {
    name: row.name,
    description: row.description,
    baseTool: row.baseTool,
    fixedKwargs: row.fixedKwargs as Record<string, unknown>,
    retryPolicy: (row.retryPolicy ?? null) as RetryPolicy | null,
    limits: row.limits ? resolveLimits(row.name, row.limits as LimitsInit) : null,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Preset writes: every rule of docs/composing-the-surface.md is checked before anything
 * is stored, and a refused write leaves stored data unchanged. `onChanged` reloads the surface (here and,
 * through the bus, on every instance).
 */
export class PresetService {
  constructor(
    private readonly db: Db,
    private readonly surface: Surface,
    private readonly onChanged: () => Promise<void>,
    /** Variables no marker may name besides TAI_*, DATABASE_URL and REDIS_URL (TAI_ENV_DENY). */
    private readonly envDeny: readonly string[] = [],
    /**
     * The composed surface's branches: a write binds the combos it builds on, and an update re-checks what builds on
     * it.
     */
    private readonly binding?: PresetBinding,
  ) {}

  async list(): Promise<Preset[]> {
    return (await this.db.preset.findMany({ orderBy: { name: "asc" } })).map(toPreset);
  }

  async get(name: string): Promise<Preset | null> {
    const row = await this.db.preset.findUnique({ where: { name } });
    return row ? toPreset(row) : null;
  }

  async create(input: PresetInput, caller: Caller): Promise<Preset> {
    const policy = await this.check(input, caller, null);
    try {
      await writeSurface(this.db, (tx) =>
        tx.preset.create({
          data: {
            name: input.name,
            description: input.description,
            baseTool: input.baseTool,
            fixedKwargs: input.fixedKwargs as never,
            retryPolicy: (policy ?? undefined) as never,
            limits: (input.limits ?? undefined) as never,
          },
        }),
      );
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ApiError("CONFLICT", `a preset named "${input.name}" already exists`, [
          { path: "/name", message: "is taken" },
        ]);
      throw e;
    }
    await this.onChanged();
    return (await this.get(input.name))!;
  }

  /** Optimistic concurrency: the write applies only if the stored version is `expectedVersion`. */
  async update(name: string, input: PresetInput, expectedVersion: number, caller: Caller): Promise<Preset> {
    if (input.name !== name)
      throw ApiError.badInput(`a preset cannot be renamed (path "${name}", input "${input.name}")`, [
        { path: "/input/name", message: `must be "${name}"` },
      ]);
    const current = await this.get(name);
    if (!current) throw new ApiError("NOT_FOUND", `no preset named "${name}"`);
    requireAuthor(caller);
    // Rewriting a preset over a fenced or secret base is authoring over it, whatever the new base.
    const was = this.surface.base(current.baseTool);
    if (was && !mayAuthorOver(caller.role, was.tier))
      throw new ApiError(
        "FORBIDDEN",
        `only an ADMIN may update a preset over the ${was.tier}-tier tool "${was.name}" (you are ${caller.role})`,
      );
    requireMarkerAuthor(current, caller, "update");
    const policy = await this.check(input, caller, name);
    // The version guard is part of the UPDATE itself, so two concurrent writers can never both win.
    const { count } = await writeSurface(this.db, async (tx) => {
      // Inside the write: a preset created over this one concurrently is re-checked too.
      this.checkDependants(current, input, policy, (await tx.preset.findMany()).map(toPreset));
      return tx.preset.updateMany({
        where: { name, version: expectedVersion },
        data: {
          description: input.description,
          baseTool: input.baseTool,
          fixedKwargs: input.fixedKwargs as never,
          retryPolicy: (policy ?? null) as never,
          ...(input.limits !== undefined ? { limits: (input.limits ?? null) as never } : {}),
          version: { increment: 1 },
        },
      });
    });
    if (count === 0) {
      const now = await this.get(name);
      if (!now) throw new ApiError("NOT_FOUND", `no preset named "${name}"`);
      throw new ApiError(
        "CONFLICT",
        `preset "${name}" is at version ${now.version}, not the expected ${expectedVersion}; re-read it and retry`,
        [{ path: "/expectedVersion", message: `is stale (current ${now.version})` }],
      );
    }
    await this.onChanged();
    return (await this.get(name))!;
  }

  /** Refused while other presets build on it, or the active manifest names it, naming them. */
  async delete(name: string, caller: Caller): Promise<void> {
    requireAuthor(caller);
    const current = await this.get(name);
    if (!current) throw new ApiError("NOT_FOUND", `no preset named "${name}"`);
    const base = this.surface.base(current.baseTool);
    if (base && !mayAuthorOver(caller.role, base.tier))
      throw new ApiError(
        "FORBIDDEN",
        `only an ADMIN may delete a preset over the ${base.tier}-tier tool "${base.name}"`,
      );
    requireMarkerAuthor(current, caller, "delete");
    // Inside the write: a preset created over this one concurrently is seen (the version bump serialises them).
    await writeSurface(this.db, async (tx) => {
      const dependants = await tx.preset.findMany({
        where: { baseTool: name },
        select: { name: true },
        orderBy: { name: "asc" },
      });
      if (dependants.length)
        throw new ApiError(
          "CONFLICT",
          `preset "${name}" cannot be deleted: ${dependants.map((d) => `"${d.name}"`).join(", ")} build${dependants.length === 1 ? "s" : ""} on it`,
          dependants.map((d) => ({ path: `/dependants/${d.name}`, message: `preset "${d.name}" builds on "${name}"` })),
        );
      await refuseIfManifestNames(tx, name);
      const { count } = await tx.preset.deleteMany({ where: { name } });
      if (!count) throw new ApiError("NOT_FOUND", `no preset named "${name}"`);
    });
    await this.onChanged();
  }

  /** Every write rule; returns the resolved own policy. Throws BAD_USER_INPUT with all issues. */
  private async check(input: PresetInput, caller: Caller, updating: string | null): Promise<RetryPolicy | null> {
    requireAuthor(caller);
    // Only an ADMIN references the environment, and nobody the server's own configuration.
    checkMarkerWrite(input.fixedKwargs, "/fixedKwargs", { admin: isAdmin(caller.role), deny: this.envDeny });
    const issues: Issue[] = [];
    if (typeof input.name !== "string" || !NAME.test(input.name))
      issues.push({ path: "/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" });
    if (typeof input.description !== "string" || !input.description.trim())
      issues.push({ path: "/description", message: "must not be empty" });
    if (!input.fixedKwargs || typeof input.fixedKwargs !== "object" || Array.isArray(input.fixedKwargs))
      issues.push({ path: "/fixedKwargs", message: "must be an object" });
    issues.push(
      ...unstorableIssues(input.description, "/description"),
      ...unstorableIssues(input.fixedKwargs, "/fixedKwargs"),
      ...unstorableIssues(input.retryPolicy, "/retryPolicy"),
      ...unstorableIssues(input.limits, "/limits"),
    );
    if (input.limits !== undefined && !isAdmin(caller.role))
      throw new ApiError("FORBIDDEN", `only an ADMIN may set a preset's limits (you are ${caller.role})`);
    if (input.limits) issues.push(...limitsIssues(input.name, input.limits, "/limits"));
    const existing = this.surface.base(input.name);
    if (!updating && existing && existing.origin !== "PRESET")
      issues.push({
        path: "/name",
        message: `is already the name of a ${existing.origin.toLowerCase()} on the surface`,
      });

    let policy: RetryPolicy | null = null;
    if (input.retryPolicy) {
      try {
        policy = resolvePolicy(input.name, input.retryPolicy);
      } catch (e) {
        if (!isDefinitionError(e, "retry.")) throw e;
        issues.push(...e.issues.map((i) => ({ path: `/retryPolicy${i.path}`, message: i.message })));
      }
    }

    const base = this.surface.base(input.baseTool);
    if (!base) issues.push({ path: "/baseTool", message: `no tool, preset or branch named "${input.baseTool}"` });
    // A platform built-in (ask_caller) belongs to agent runs: a preset would put it on the API.
    else if (base.module === "builtin")
      issues.push({
        path: "/baseTool",
        message: `"${input.baseTool}" is a built-in of agent runs and cannot be a preset's base`,
      });
    else {
      const cycle = await this.cycleThrough(input.name, input.baseTool);
      if (cycle) issues.push({ path: "/baseTool", message: `would make a cycle: ${cycle.join(" → ")}` });
      if (!mayAuthorOver(caller.role, base.tier)) {
        throw new ApiError(
          "FORBIDDEN",
          `only an ADMIN may author a preset over the ${base.tier}-tier tool "${base.name}" (you are ${caller.role})`,
        );
      }
      // A preset runs its base: a scoped key may not widen its scope by writing one over a name outside it.
      if (!inScope(caller, base.name)) throw new ApiError("FORBIDDEN", outOfScope(caller, base.name));
      if (input.fixedKwargs && typeof input.fixedKwargs === "object" && !Array.isArray(input.fixedKwargs))
        issues.push(...bakedIssues(base, input.fixedKwargs));
      if (this.binding) issues.push(...chainBindIssues(input.baseTool, (n) => this.surface.base(n), this.binding));
    }
    if (issues.length) throw ApiError.badInput(`invalid preset "${input.name}": ${describeIssues(issues)}`, issues);
    return policy;
  }

  /**
   * An update changes the base every dependant builds on: each stored preset over it (all
   * the way down) must still bake valid keys, and each branch the active manifest attaches
   * to it must still bind. Otherwise CONFLICT, naming each dependant; nothing is stored.
   */
  private checkDependants(current: Preset, input: PresetInput, policy: RetryPolicy | null, stored: Preset[]): void {
    const base = this.surface.base(input.baseTool);
    if (!this.binding || !base) return;
    const changed = this.binding.presetEntry(
      {
        ...current,
        description: input.description,
        baseTool: input.baseTool,
        fixedKwargs: input.fixedKwargs,
        retryPolicy: policy,
      },
      base,
    );
    const broken = dependantIssues(changed, stored, this.binding);
    if (broken.length)
      throw new ApiError(
        "CONFLICT",
        `preset "${current.name}" cannot be changed: what builds on it would break: ${describeIssues(broken)}`,
        broken,
      );
  }

  /** The cycle `name → base → … → name`, if making `name` build on `baseTool` closes one. */
  private async cycleThrough(name: string, baseTool: string): Promise<string[] | null> {
    const path = [name];
    let cursor: string | null = baseTool;
    const rows = new Map(
      (await this.db.preset.findMany({ select: { name: true, baseTool: true } })).map((r) => [r.name, r.baseTool]),
    );
    while (cursor !== null) {
      path.push(cursor);
      if (cursor === name) return path;
      if (path.length > 100) return path;
      cursor = rows.get(cursor) ?? null;
    }
    return null;
  }
}

/** A preset the active manifest names cannot be deleted: the manifest would no longer validate. */
async function refuseIfManifestNames(tx: Pick<Db, "manifest">, name: string): Promise<void> {
  const active = await tx.manifest.findFirst({ where: { active: true }, select: { name: true, document: true } });
  const at = active ? namedAt(active.document as ManifestDocument, name) : [];
  if (!active || !at.length) return;
  throw new ApiError(
    "CONFLICT",
    `preset "${name}" cannot be deleted: the active manifest "${active.name}" names it (at ${at.join(", ")}); change or deactivate the manifest first`,
    at.map((p) => ({
      path: `/manifests/${active.name}${p}`,
      message: `the active manifest "${active.name}" names "${name}"`,
    })),
  );
}

function requireAuthor(caller: Caller): void {
  if (!mayWritePresets(caller.role)) throw new ApiError("FORBIDDEN", "a READER may not write presets");
}

/** A preset holding `!ENV` markers was written by an ADMIN; only an ADMIN may rewrite or delete it. */
function requireMarkerAuthor(current: Preset, caller: Caller, what: "update" | "delete"): void {
  if (!isAdmin(caller.role) && hasMarker(current.fixedKwargs))
    throw new ApiError(
      "FORBIDDEN",
      `only an ADMIN may ${what} preset "${current.name}": it holds !ENV markers (you are ${caller.role})`,
    );
}
