import { createHash, randomUUID } from "node:crypto";
import pg from "pg";
import type { Logger } from "../log.ts";
import type { Slot } from "./limit-backend.ts";

/** The table of the slots' leases (created on first use, like rate-limiter-flexible's counters' table). */
export const SLOTS_TABLE = "tai42_limit_slots";
/** How long one statement (or the wait for one of the slots' connections) may take before PostgreSQL counts as lost. */
const COMMAND_MS = 1000;
/** A slot's lease: refreshed while it is held, so a dead instance's slots come back within it. */
const LEASE_MS = 30_000;
/** The slots' own connections: a busy run log never makes a slot wait for one of the database pool's. */
const CONNECTIONS = 4;
/** Tries of one acquire that lost the race for a free slot to a concurrent acquire (another slot may be free). */
const RACE_TRIES = 3;
/** Keys longer than this (as stored) are stored as their hash: a primary key's entry must stay small. */
const MAX_STORED_KEY = 200;

const CREATE = `
  BEGIN;
  SELECT pg_advisory_xact_lock(hashtext('${SLOTS_TABLE}'));
  CREATE TABLE IF NOT EXISTS ${SLOTS_TABLE} (
    key text NOT NULL,
    slot integer NOT NULL,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (key, slot)
  );
  COMMIT;`;

/**
 * One statement takes a free slot of `$1` among 0..`$2`-1 for holder `$3` with a lease of `$4` ms: a slot no live
 * lease holds, chosen at random (concurrent acquires rarely pick the same), inserted, or taken over when its row's
 * lease has expired. Two acquires racing for one slot meet on its primary key: the second waits for the first and
 * then finds the lease live, so never both win. `live` says how many leases were live (the cap is full when no slot
 * was taken and `live` >= `$2`; else the acquire lost a race and may try again). Live leases at or above `$2` (the
 * cap was lowered, or another instance declares a higher one) shrink the range picked from by as many, so the primary
 * key still bounds what is held to `$2` when acquires race.
 */
const ACQUIRE = `
  WITH live AS (
    SELECT slot FROM ${SLOTS_TABLE} WHERE key = $1 AND expires_at > now()
  ), pick AS (
    SELECT s FROM generate_series(0, $2::int - 1 - (SELECT count(*) FROM live WHERE slot >= $2::int)::int) AS s
    WHERE (SELECT count(*) FROM live) < $2::int AND s NOT IN (SELECT slot FROM live)
    ORDER BY random() LIMIT 1
  ), took AS (
    INSERT INTO ${SLOTS_TABLE} AS t (key, slot, holder, expires_at)
    SELECT $1, s, $3, now() + $4::int * interval '1 millisecond' FROM pick
    ON CONFLICT (key, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE t.expires_at <= now()
    RETURNING t.slot
  )
  SELECT (SELECT slot FROM took) AS slot, (SELECT count(*) FROM live)::int AS live`;

const RELEASE = `DELETE FROM ${SLOTS_TABLE} WHERE key = $1 AND slot = $2 AND holder = $3`;

/** Extends the leases of the slots still held here (a slot whose release failed is left to expire). */
const REFRESH = `
  UPDATE ${SLOTS_TABLE} AS t SET expires_at = now() + $1::int * interval '1 millisecond'
  FROM unnest($2::text[], $3::int[], $4::text[]) AS held(key, slot, holder)
  WHERE t.key = held.key AND t.slot = held.slot AND t.holder = held.holder
  RETURNING t.holder`;

/**
 * A key as stored: any string (NUL, lone surrogates) as JSON text, which PostgreSQL's `text` takes and which is one to
 * one; a long one as the hash of that.
 */
export function storedKey(key: string): string {
  const json = JSON.stringify(key);
  return json.length <= MAX_STORED_KEY ? json : `sha256:${createHash("sha256").update(json).digest("hex")}`;
}

/** Settings of {@link PostgresSlots}: tests shorten the lease. */
export interface SlotsOptions {
  leaseMs?: number;
}

/**
 * Concurrency slots on PostgreSQL: a leased semaphore in a table of leases, one row per held slot
 * (`key`, `slot` among 0..max-1, `holder`, `expires_at`). A slot is taken by one statement, released by deleting its
 * row, and its lease (30 s) is refreshed while it is held, every third of a lease by one statement for all the slots
 * held here; a dead instance stops refreshing, so its slots come back within one lease. The clock is
 * PostgreSQL's: instances' clocks never compare.
 *
 * Written here rather than taken from npm: no maintained package offers a counting semaphore with expiring leases on a
 * `pg.Pool`. `advisory-lock` is a mutex on PostgreSQL advisory locks, which are held by a session: each held slot would
 * pin one connection (a cap of 10,000 cannot), and a frozen instance's session keeps them. redis-semaphore (what the
 * Redis backend uses) and `effect-distributed-lock` (Effect, Redis only) need Redis.
 *
 * The statements run on connections of their own (at most {@link CONNECTIONS}), each bounded by {@link COMMAND_MS}
 * on the server (`statement_timeout`) and in the client (`query_timeout`), as is the wait for a connection: a lost or
 * silent PostgreSQL fails an acquire within seconds, and the caller degrades (SharedLimits).
 */
export class PostgresSlots {
  private readonly pool: pg.Pool;
  /** This backend's id: each slot it takes is held as `<id>/<n>`, its own holder (a release deletes only its lease). */
  private readonly id = randomUUID();
  private taken = 0;
  private readonly leaseMs: number;
  /** The slots held here, by holder. */
  private readonly held = new Map<string, { key: string; slot: number }>();
  private table: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    shared: pg.Pool,
    private readonly log: Logger,
    /** Told when a refresh fails (PostgreSQL out of reach). */
    private readonly lost: (e: unknown) => void,
    opts: SlotsOptions = {},
  ) {
    this.leaseMs = opts.leaseMs ?? LEASE_MS;
    this.pool = new pg.Pool({
      ...shared.options,
      max: CONNECTIONS,
      connectionTimeoutMillis: COMMAND_MS,
      query_timeout: COMMAND_MS,
      statement_timeout: COMMAND_MS,
      allowExitOnIdle: true,
      application_name: "tai42-limits",
    });
    // An idle connection that dies (a restart, a cut link) is dropped by the pool; unheard, its error would end us.
    this.pool.on("error", () => {});
  }

  /** Takes one of `max` slots of `key` if one is free; throws when PostgreSQL does not answer. */
  async tryAcquire(key: string, max: number): Promise<Slot | null> {
    await this.ensureTable();
    const stored = storedKey(key);
    for (let i = 0; i < RACE_TRIES; i++) {
      const holder = `${this.id}/${this.taken++}`;
      const { rows } = await this.pool.query<{ slot: number | null; live: number }>(ACQUIRE, [
        stored,
        max,
        holder,
        this.leaseMs,
      ]);
      const { slot, live } = rows[0];
      if (slot !== null) return this.hold(stored, slot, holder);
      if (live >= max) return null;
    }
    return null;
  }

  /** Stops refreshing and closes the connections. The slots still held come back within one lease. */
  async close(): Promise<void> {
    this.stopRefresh();
    this.held.clear();
    await this.pool.end().catch(() => {});
  }

  private ensureTable(): Promise<void> {
    this.table ??= this.pool.query(CREATE).then(
      () => {},
      (e: unknown) => {
        this.table = null;
        throw e;
      },
    );
    return this.table;
  }

  private hold(key: string, slot: number, holder: string): Slot {
    this.held.set(holder, { key, slot });
    this.timer ??= setInterval(() => void this.refresh(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.timer.unref?.();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.held.delete(holder);
        if (!this.held.size) this.stopRefresh();
        // A release that fails (PostgreSQL out of reach) leaves the lease to expire: it is no longer refreshed.
        await this.pool.query(RELEASE, [key, slot, holder]).catch(() => {});
      },
    };
  }

  /** Extends every held slot's lease; a slot whose lease another holder took over (it had expired) is lost. */
  private async refresh(): Promise<void> {
    const held = [...this.held.entries()];
    if (!held.length) return;
    try {
      const { rows } = await this.pool.query<{ holder: string }>(REFRESH, [
        this.leaseMs,
        held.map(([, h]) => h.key),
        held.map(([, h]) => h.slot),
        held.map(([holder]) => holder),
      ]);
      const kept = new Set(rows.map((r) => r.holder));
      for (const [holder, { key }] of held)
        if (!kept.has(holder) && this.held.delete(holder))
          this.log.warn("a concurrency slot's lease was lost (PostgreSQL was out of reach)", { key });
      if (!this.held.size) this.stopRefresh();
    } catch (e) {
      this.lost(e);
    }
  }

  private stopRefresh(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
