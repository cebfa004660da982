import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import { writeSurface, type Tx } from "../registry/surface-version.ts";
import type {
  ChangeCause,
  ConnectorChange,
  ConnectorRecord,
  ListingDiff,
  StoredListing,
  ToolDecision,
} from "./connector-record.ts";

/**
 * A connector row as the core reads it: the served record's fields, with the stored listing in place of the served
 * tools and health.
 */
export interface StoredConnector extends Omit<ConnectorRecord, "tools" | "refused" | "health"> {
  listing: StoredListing;
}

type Row = Awaited<ReturnType<Db["connector"]["findUniqueOrThrow"]>>;
type ChangeRow = Awaited<ReturnType<Db["connectorChange"]["findUniqueOrThrow"]>>;

const EMPTY: StoredListing = { tools: [], refused: [], pinned: {} };

export function toStored(row: Row): StoredConnector {
  const listing = (row.listing ?? EMPTY) as unknown as StoredListing;
  return {
    name: row.name,
    kind: row.kind,
    description: row.description,
    settings: row.settings as Record<string, unknown>,
    decisions: (row.tools ?? {}) as Record<string, ToolDecision>,
    version: row.version,
    listing: { tools: listing.tools ?? [], refused: listing.refused ?? [], pinned: listing.pinned ?? {} },
    listingVersion: row.listingVersion,
    refreshedAt: row.refreshedAt?.toISOString() ?? null,
    refreshError: row.refreshError,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toChange(row: ChangeRow): ConnectorChange {
  return {
    connector: row.connectorName,
    listingVersion: row.listingVersion,
    cause: row.cause as ChangeCause,
    diff: row.diff as unknown as ListingDiff,
    at: row.at.toISOString(),
  };
}

/** What a put writes. */
export interface ConnectorWrite {
  name: string;
  kind: string;
  description: string;
  settings: Record<string, unknown>;
  decisions: Record<string, ToolDecision>;
  listing: StoredListing;
}

/** A new listing version and its diff, stored with the write (null: the listing did not change). */
export interface ListingChange {
  cause: ChangeCause;
  diff: ListingDiff;
}

/**
 * Prisma reads and writes of `Connector` and `ConnectorChange` (docs/connectors.md §2).
 * Every write goes through `writeSurface`, so it bumps the stored surface version in its
 * transaction and every instance reloads. `check` runs inside the transaction, before the
 * write (dependants are read there, serialised with every other configuration write).
 */
export class ConnectorStore {
  constructor(private readonly db: Db) {}

  async all(): Promise<StoredConnector[]> {
    return (await this.db.connector.findMany({ orderBy: { name: "asc" } })).map(toStored);
  }

  async get(name: string): Promise<StoredConnector | null> {
    const row = await this.db.connector.findUnique({ where: { name } });
    return row ? toStored(row) : null;
  }

  /**
   * Creates (`expectedVersion` 0) or replaces (the stored version) a connector; CONFLICT when the name is taken or the
   * version is stale.
   */
  async put(
    write: ConnectorWrite,
    expectedVersion: number,
    change: ListingChange | null,
    check: (tx: Tx) => Promise<void> = async () => {},
  ): Promise<ConnectorChange | null> {
    const data = {
      kind: write.kind,
      description: write.description,
      settings: write.settings as never,
      tools: write.decisions as never,
      listing: write.listing as never,
    };
    try {
      return await writeSurface(this.db, async (tx) => {
        await check(tx);
        const now = new Date();
        if (expectedVersion === 0) {
          await tx.connector.create({
            data: { name: write.name, ...data, listingVersion: change ? 1 : 0, refreshedAt: now },
          });
          return change ? addChange(tx, write.name, 1, change, now) : null;
        }
        const current = await tx.connector.findUnique({
          where: { name: write.name },
          select: { version: true, listingVersion: true },
        });
        if (!current) throw new ApiError("NOT_FOUND", `no connector named "${write.name}"`);
        const listingVersion = current.listingVersion + (change ? 1 : 0);
        const { count } = await tx.connector.updateMany({
          where: { name: write.name, version: expectedVersion },
          data: { ...data, listingVersion, refreshedAt: now, refreshError: null, version: { increment: 1 } },
        });
        if (count === 0) throw stale(write.name, current.version, expectedVersion);
        return change ? addChange(tx, write.name, listingVersion, change, now) : null;
      });
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ApiError("CONFLICT", `a connector named "${write.name}" already exists`, [
          { path: "/name", message: "is taken" },
        ]);
      throw e;
    }
  }

  /**
   * Stores a refreshed listing as the next listing version (the settings and `version` unchanged).
   * `version` is the settings version the listing was taken at: when a put replaced the connector
   * meanwhile, the stale listing is not stored (null).
   */
  async storeListing(
    name: string,
    version: number,
    listing: StoredListing,
    change: ListingChange,
    check: (tx: Tx) => Promise<void> = async () => {},
  ): Promise<ConnectorChange | null> {
    return writeSurface(this.db, async (tx) => {
      const current = await tx.connector.findUnique({
        where: { name },
        select: { listingVersion: true, version: true },
      });
      if (!current || current.version !== version) return null;
      await check(tx);
      const now = new Date();
      const listingVersion = current.listingVersion + 1;
      await tx.connector.update({
        where: { name },
        data: { listing: listing as never, listingVersion, refreshedAt: now, refreshError: null },
      });
      return addChange(tx, name, listingVersion, change, now);
    });
  }

  /**
   * Records a refresh's outcome without a new listing: its failure (null: it succeeded and nothing changed). No surface
   * bump: the surface is unchanged.
   */
  async markRefreshed(name: string, error: string | null): Promise<void> {
    await this.db.connector.updateMany({
      where: { name },
      data: error === null ? { refreshedAt: new Date(), refreshError: null } : { refreshError: error },
    });
  }

  /** Deletes a connector (and its changes); `check` refuses inside the transaction. False when there was none. */
  async delete(
    name: string,
    expectedVersion: number | undefined,
    check: (tx: Tx) => Promise<void> = async () => {},
  ): Promise<boolean> {
    return writeSurface(this.db, async (tx) => {
      const current = await tx.connector.findUnique({ where: { name }, select: { version: true } });
      if (!current) return false;
      if (expectedVersion !== undefined && expectedVersion !== 0 && current.version !== expectedVersion)
        throw stale(name, current.version, expectedVersion);
      await check(tx);
      const { count } = await tx.connector.deleteMany({
        where: { name, ...(expectedVersion ? { version: expectedVersion } : {}) },
      });
      if (!count) throw stale(name, current.version, expectedVersion ?? current.version);
      return true;
    });
  }

  /** The last `last` changes of a connector, newest first. */
  async changes(name: string, last = 10): Promise<ConnectorChange[]> {
    const rows = await this.db.connectorChange.findMany({
      where: { connectorName: name },
      orderBy: { listingVersion: "desc" },
      take: Math.max(0, Math.min(last, 1000)),
    });
    return rows.map(toChange);
  }
}

async function addChange(
  tx: Tx,
  name: string,
  listingVersion: number,
  change: ListingChange,
  at: Date,
): Promise<ConnectorChange> {
  const row = await tx.connectorChange.create({
    data: { connectorName: name, listingVersion, cause: change.cause, diff: change.diff as never, at },
  });
  return toChange(row);
}

function stale(name: string, current: number, expected: number): ApiError {
  return new ApiError(
    "CONFLICT",
    `connector "${name}" is at version ${current}, not the expected ${expected}; re-read it and retry`,
    [{ path: "/expectedVersion", message: `is stale (current ${current})` }],
  );
}
