import type pg from "pg";

/** How long the preflight's connection may take before PostgreSQL counts as out of reach. */
const CONNECT_MS = 10_000;

/** PostgreSQL's SQLSTATEs the preflight answers itself. */
const MISSING_DATABASE = "3D000";
/** A database that exists already: 42P04, or the catalog's unique index when two creations race (23505). */
const DUPLICATE_DATABASE = new Set(["42P04", "23505"]);

type Client = InstanceType<typeof pg.Client>;

/** `url` without Prisma's `?schema=` (pg would not understand it), and the schema it names. */
export function pgTarget(url: string): { href: string; schema: string | null } {
  const u = new URL(url);
  const schema = u.searchParams.get("schema");
  u.searchParams.delete("schema");
  return { href: u.href, schema };
}

/** Where `url` points, as a one-line error may say it: host, port and database, never the credentials. */
function where(url: string): { at: string; database: string } {
  const u = new URL(url);
  return { at: `${u.hostname}:${u.port || "5432"}`, database: decodeURIComponent(u.pathname.slice(1)) || "postgres" };
}

/**
 * A client connected to the database of `url`, creating that database first when it does not exist (a fresh
 * deployment needs only a server it may create databases on). PostgreSQL out of reach, a refused login, or a missing
 * database that cannot be created is one line naming what and where (DATABASE_URL), instead of the migration tool's
 * page of output.
 */
export async function connectCreating(url: string): Promise<Client> {
  const { default: pgModule } = await import("pg");
  const open = async (connectionString: string) => {
    const client = new pgModule.Client({ connectionString, connectionTimeoutMillis: CONNECT_MS });
    try {
      await client.connect();
      return client;
    } catch (e) {
      await client.end().catch(() => {});
      throw e;
    }
  };
  const { href } = pgTarget(url);
  const { at, database } = where(href);
  try {
    return await open(href);
  } catch (e) {
    if (codeOf(e) !== MISSING_DATABASE) throw unreachable(e, at, database);
  }
  const admin = new URL(href);
  admin.pathname = "/postgres";
  let created: Client | null = null;
  try {
    created = await open(admin.href);
    await created.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
  } catch (e) {
    // Another instance starting at the same moment created it first.
    if (!DUPLICATE_DATABASE.has(codeOf(e) as string))
      throw new Error(
        `the PostgreSQL database "${database}" at ${at} does not exist and could not be created (${messageOf(e)}): ` +
          `create it (createdb ${database}) or let DATABASE_URL's user create databases`,
        { cause: e },
      );
  } finally {
    await created?.end().catch(() => {});
  }
  return open(href).catch((e: unknown) => {
    throw unreachable(e, at, database);
  });
}

function unreachable(e: unknown, at: string, database: string): Error {
  const code = codeOf(e);
  const why =
    code === "28P01" || code === "28000"
      ? `the login was refused (${messageOf(e)})`
      : code === "ECONNREFUSED"
        ? "nothing listens there (is PostgreSQL running?)"
        : messageOf(e);
  return new Error(`cannot connect to PostgreSQL database "${database}" at ${at}: ${why} (DATABASE_URL)`, { cause: e });
}

const codeOf = (e: unknown) => (e as { code?: unknown } | null)?.code;
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0];
