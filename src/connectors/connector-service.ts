import type { Caller } from "../auth/roles.ts";
import { representable } from "./listing-check.ts";
import { requireAdmin } from "../auth/ownership.ts";
import { ApiError, describeIssues, isToolError, ToolError, type Issue } from "../errors.ts";
import type { Surface } from "../registry/surface.ts";
import type { ConnectionManager } from "./connections.ts";
import { checkConnectorInput } from "./connector-input.ts";
import type { ConnectorConnection, UpstreamListing } from "./connector-kind.ts";
import type {
  BrokenDependant,
  ChangeCause,
  ConnectorApi,
  ConnectorChange,
  ConnectorInput,
  ConnectorRecord,
  StoredListing,
} from "./connector-record.ts";
import type { ConnectorStore, StoredConnector } from "./connector-store.ts";
import { connectorTools, nameClashes, pinTiers, surfaceName } from "./connector-tools.ts";
import type { KindCatalog } from "./kind-catalog.ts";
import type { Logger } from "../log.ts";
import { brokenDependants, readDependants } from "./dependants.ts";
import { diffListings, listingDiffers } from "./listing-diff.ts";

/** `work` or, past `ms`, a ToolError saying what did not finish; a late value is handed to `late` (to close it). */
async function within<T>(work: Promise<T>, ms: number, what: string, late: (value: T) => void = () => {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new ToolError(`${what} within ${ms % 1000 ? (ms / 1000).toFixed(1) : ms / 1000} s`, { kind: "TIMEOUT" }));
    }, ms);
  });
  work.then((v) => timedOut && late(v)).catch(() => {});
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ConnectorServiceDeps {
  store: ConnectorStore;
  kinds: KindCatalog;
  connections: ConnectionManager;
  surface: Surface;
  /** Variables no marker may name besides TAI_*, DATABASE_URL and REDIS_URL (TAI_ENV_DENY). */
  envDeny: readonly string[];
  /** After a write: reloads the surface here and tells the other instances. */
  changed(): Promise<void>;
  /** Publishes a new listing version to every instance (`connectorChanged`). */
  publish(change: ConnectorChange): void;
  log: Logger;
  /**
   * How long a put waits for its probe to connect, then to list, and a refresh for its connection
   * (TAI_CONNECTOR_CONNECT_SECONDS).
   */
  connectBoundMs: number;
}

/**
 * The one entry point for connector configuration (docs/connectors.md §2), ADMIN only on
 * every method: GraphQL, the CLI and the dashboard are thin over it. A put checks the
 * input, connects, lists the upstream, checks names and collisions, and stores settings
 * and listing in one transaction; nothing is stored on any refusal.
 */
export class ConnectorService implements ConnectorApi {
  constructor(private readonly deps: ConnectorServiceDeps) {}

  async list(caller: Caller): Promise<ConnectorRecord[]> {
    requireAdmin(caller, "read connectors");
    return (await this.deps.store.all()).map((row) => this.record(row));
  }

  async get(caller: Caller, name: string): Promise<ConnectorRecord | null> {
    requireAdmin(caller, "read connectors");
    const row = await this.deps.store.get(name);
    return row ? this.record(row) : null;
  }

  async put(
    caller: Caller,
    input: ConnectorInput,
    expectedVersion = 0,
  ): Promise<{ connector: ConnectorRecord; change: ConnectorChange | null }> {
    requireAdmin(caller, "write connectors");
    const checked = checkConnectorInput(input, this.deps.kinds.all(), this.deps.envDeny);
    const { name } = checked.input;
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
      throw ApiError.badInput("expectedVersion must be a non-negative integer", [
        { path: "/expectedVersion", message: "must be a non-negative integer" },
      ]);
    const existing = await this.deps.store.get(name);
    if (expectedVersion === 0 && existing)
      throw new ApiError("CONFLICT", `a connector named "${name}" already exists (version ${existing.version})`, [
        { path: "/name", message: "is taken" },
      ]);
    if (expectedVersion > 0 && !existing) throw new ApiError("NOT_FOUND", `no connector named "${name}"`);
    if (existing && existing.version !== expectedVersion)
      throw new ApiError(
        "CONFLICT",
        `connector "${name}" is at version ${existing.version}, not the expected ${expectedVersion}; re-read it and retry`,
        [{ path: "/expectedVersion", message: `is stale (current ${existing.version})` }],
      );
    const target = { name, kind: checked.kind.name, settings: checked.input.settings, version: 0 };
    const { conn, found } = await this.probe(target);
    try {
      const listing: StoredListing = { ...found, pinned: pinTiers(existing?.listing.pinned ?? {}, found.tools) };
      this.refuseCollisions(name, listing);
      const diff = diffListings(name, existing?.listing ?? null, listing);
      const differs = listingDiffers(existing?.listing ?? null, listing);
      const change = await this.deps.store.put(
        {
          name,
          kind: checked.kind.name,
          description: checked.input.description ?? "",
          settings: checked.input.settings,
          decisions: checked.decisions,
          listing,
        },
        expectedVersion,
        differs ? { cause: "PUT", diff } : null,
        async (tx) => {
          const broken = brokenDependants(name, existing?.listing ?? { tools: [] }, listing, await readDependants(tx));
          if (broken.length)
            throw ApiError.badInput(
              `connector "${name}": the new listing would break ${broken.map(describeBroken).join("; ")}`,
              broken.map(brokenIssue),
            );
        },
      );
      const stored = (await this.deps.store.get(name))!;
      this.deps.connections.adopt(
        { name, kind: stored.kind, settings: stored.settings, version: stored.version },
        conn,
      );
      await this.deps.changed();
      if (change) this.deps.publish(change);
      return { connector: this.record(stored), change };
    } catch (e) {
      await conn.close();
      throw e;
    }
  }

  async refresh(caller: Caller, name: string): Promise<{ connector: ConnectorRecord; change: ConnectorChange | null }> {
    requireAdmin(caller, "refresh connectors");
    if (!(await this.deps.store.get(name))) throw new ApiError("NOT_FOUND", `no connector named "${name}"`);
    return this.relist(name, "REFRESH");
  }

  /**
   * Re-lists a stored connector (a refresh, an upstream's list change, the poll): a new
   * listing version and its change only when the listing differs. A tool whose name
   * collides is kept off the surface under `refused`; a failure records `refreshError` and
   * keeps the stored listing.
   */
  async relist(
    name: string,
    cause: Exclude<ChangeCause, "PUT">,
  ): Promise<{ connector: ConnectorRecord; change: ConnectorChange | null }> {
    const row = await this.deps.store.get(name);
    if (!row) throw new ApiError("NOT_FOUND", `no connector named "${name}"`);
    let found: UpstreamListing;
    try {
      const conn = await this.deps.connections.connection(
        { name, kind: row.kind, settings: row.settings, version: row.version },
        this.deps.connectBoundMs,
      );
      found = representable(await conn.list());
    } catch (e) {
      const message = this.deps.connections.scrubText((isToolError(e) ? e : ToolError.fromUnknown(e)).message);
      await this.deps.store.markRefreshed(name, message);
      return { connector: this.record((await this.deps.store.get(name)) ?? row), change: null };
    }
    const listing = this.keepOffCollisions(name, {
      tools: found.tools ?? [],
      refused: found.refused ?? [],
      pinned: pinTiers(row.listing.pinned, found.tools ?? []),
    });
    let change: ConnectorChange | null = null;
    if (listingDiffers(row.listing, listing)) {
      const diff = diffListings(name, row.listing, listing);
      change = await this.deps.store.storeListing(name, row.version, listing, { cause, diff }, async (tx) => {
        diff.broken = brokenDependants(name, row.listing, listing, await readDependants(tx));
      });
      if (!change) return { connector: this.record((await this.deps.store.get(name)) ?? row), change: null };
      for (const b of diff.broken)
        this.deps.log.warn("a connector's new listing broke a dependant", {
          connector: name,
          cause,
          dependant: b.name,
          kind: b.kind,
          tool: b.tool,
          reason: b.reason,
        });
      await this.deps.changed();
      this.deps.publish(change);
    } else await this.deps.store.markRefreshed(name, null);
    return { connector: this.record((await this.deps.store.get(name)) ?? row), change };
  }

  /**
   * A refreshed listing with each colliding tool moved to `refused` (a refresh cannot refuse what the upstream did).
   */
  private keepOffCollisions(name: string, listing: StoredListing): StoredListing {
    const refused = [...listing.refused];
    const seen = new Map<string, string>();
    const tools = listing.tools.filter((tool) => {
      const surface = surfaceName(name, tool.name);
      const held = this.deps.surface.base(surface);
      const first = seen.get(surface);
      let reason: string | null = null;
      if (first !== undefined) reason = `maps to the surface name "${surface}", as upstream tool "${first}" does`;
      else if (held && !(held.origin === "CONNECTOR" && held.connector === name))
        reason = `maps to the surface name "${surface}", which a ${held.origin.toLowerCase()} holds`;
      if (reason) refused.push({ name: tool.name, reason });
      else seen.set(surface, tool.name);
      return reason === null;
    });
    return { tools, refused, pinned: listing.pinned };
  }

  async delete(caller: Caller, name: string, expectedVersion?: number): Promise<boolean> {
    requireAdmin(caller, "delete connectors");
    const deleted = await this.deps.store.delete(name, expectedVersion, async (tx) => {
      const row = await tx.connector.findUnique({ where: { name }, select: { listing: true } });
      const before = (row?.listing ?? { tools: [] }) as unknown as StoredListing;
      const broken = brokenDependants(name, { tools: before.tools ?? [] }, null, await readDependants(tx));
      if (broken.length)
        throw new ApiError(
          "CONFLICT",
          `connector "${name}" cannot be deleted: ${broken.map(describeBroken).join("; ")}`,
          broken.map(brokenIssue),
        );
    });
    if (deleted) await this.deps.changed();
    return deleted;
  }

  async changes(caller: Caller, name: string, last = 10): Promise<ConnectorChange[]> {
    requireAdmin(caller, "read connectors");
    return this.deps.store.changes(name, last);
  }

  /** Connects to a put's upstream and lists it; a failure refuses the put with its (scrubbed) message. */
  private async probe(target: {
    name: string;
    kind: string;
    settings: Record<string, unknown>;
    version: number;
  }): Promise<{ conn: ConnectorConnection; found: UpstreamListing }> {
    let conn: ConnectorConnection;
    try {
      conn = await within(
        this.deps.connections.probe(target),
        this.deps.connectBoundMs,
        "did not connect",
        (late) => void late.close().catch(() => {}),
      );
    } catch (e) {
      throw ApiError.badInput(`connector "${target.name}" could not connect: ${(e as Error).message}`, [
        { path: "/settings", message: `could not connect: ${(e as Error).message}` },
      ]);
    }
    try {
      const found = representable(await within(conn.list(), this.deps.connectBoundMs, "did not list its tools"));
      return { conn, found: { tools: found.tools ?? [], refused: found.refused ?? [] } };
    } catch (e) {
      await conn.close();
      const message = this.deps.connections.scrubText((isToolError(e) ? e : ToolError.fromUnknown(e)).message);
      throw ApiError.badInput(`connector "${target.name}" could not list its tools: ${message}`, [
        { path: "/settings", message: `could not list the upstream's tools: ${message}` },
      ]);
    }
  }

  /**
   * Two tools mapping to one surface name, or a name another entry holds, refuse the put naming both
   * (docs/connectors.md §3).
   */
  private refuseCollisions(name: string, listing: StoredListing): void {
    const issues: Issue[] = nameClashes(name, listing.tools).map((c) => ({
      path: `/tools/${c.tools[1]}`,
      message: `upstream tools "${c.tools[0]}" and "${c.tools[1]}" both map to the surface name "${c.name}"`,
    }));
    for (const tool of listing.tools) {
      const surface = surfaceName(name, tool.name);
      const held = this.deps.surface.base(surface);
      if (held && !(held.origin === "CONNECTOR" && held.connector === name))
        issues.push({
          path: `/tools/${tool.name}`,
          message: `upstream tool "${tool.name}" maps to "${surface}", which ${held.origin === "CONNECTOR" ? `connector "${held.connector}"'s tool` : `a ${held.origin.toLowerCase()}`} holds`,
        });
    }
    if (issues.length) throw ApiError.badInput(`connector "${name}": ${describeIssues(issues)}`, issues);
  }

  private record(row: StoredConnector): ConnectorRecord {
    return {
      name: row.name,
      kind: row.kind,
      description: row.description,
      settings: row.settings,
      decisions: row.decisions,
      version: row.version,
      listingVersion: row.listingVersion,
      tools: connectorTools(row.name, row.listing, row.decisions),
      refused: row.listing.refused,
      refreshedAt: row.refreshedAt,
      refreshError: row.refreshError,
      health: this.deps.connections.health(row.name),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}

const describeBroken = (b: BrokenDependant) =>
  `${b.kind === "PRESET" ? "preset" : "manifest"} "${b.name}" (${b.reason})`;
const brokenIssue = (b: BrokenDependant): Issue => ({
  path: `/dependants/${b.name}`,
  message: `${b.kind === "PRESET" ? "preset" : "manifest"} "${b.name}": ${b.reason}`,
});
