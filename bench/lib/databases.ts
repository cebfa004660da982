import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import pg from "pg";
import { migrate } from "../../src/db/migrate.ts";

/** A database a benchmarked server runs on, dropped after the scenario. */
export interface ScratchDb {
  kind: "sqlite" | "postgres";
  url: string;
  drop(): Promise<void>;
}

/** Scratch databases of one bench run: SQLite copies of a migrated template, PostgreSQL scratch databases. */
export class ScratchDatabases {
  private readonly dir = resolve(".tmp", `bench-${process.pid}`);
  private template: Promise<string> | null = null;
  private swept: Promise<void> | null = null;

  /**
   * @param postgresUrl a PostgreSQL URL whose server hosts the scratch databases (its own database is never written).
   */
  constructor(private readonly postgresUrl: string | null) {}

  get hasPostgres(): boolean {
    return this.postgresUrl !== null;
  }

  async create(kind: "sqlite" | "postgres"): Promise<ScratchDb> {
    if (kind === "sqlite") {
      this.template ??= (async () => {
        // Folders of bench runs whose process is gone (a run that was killed).
        for (const entry of existsSync(".tmp") ? readdirSync(".tmp") : []) {
          const pid = Number(/^bench-(\d+)$/.exec(entry)?.[1]);
          if (pid && pid !== process.pid && !alive(pid))
            rmSync(resolve(".tmp", entry), { recursive: true, force: true });
        }
        mkdirSync(this.dir, { recursive: true });
        const file = join(this.dir, "template.db");
        await migrate(`file:${file}`);
        return file;
      })();
      const file = join(this.dir, `${randomUUID()}.db`);
      copyFileSync(await this.template, file);
      return { kind, url: `file:${file}`, drop: async () => rmSync(file, { force: true }) };
    }
    if (!this.postgresUrl) throw new Error("no PostgreSQL URL was given");
    const name = `tai42_bench_${process.pid}_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
    const admin = async (sql: string) => {
      const c = new pg.Client({ connectionString: this.postgresUrl!, connectionTimeoutMillis: 5000 });
      await c.connect();
      try {
        await c.query(sql);
      } finally {
        await c.end();
      }
    };
    this.swept ??= this.sweepStale(admin);
    await this.swept;
    await admin(`CREATE DATABASE "${name}"`);
    const url = new URL(this.postgresUrl);
    url.pathname = `/${name}`;
    await migrate(url.toString());
    return { kind, url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
  }

  /** Drops the scratch databases of bench runs whose process is gone (a run that was killed). */
  private async sweepStale(admin: (sql: string) => Promise<unknown>): Promise<void> {
    const c = new pg.Client({ connectionString: this.postgresUrl!, connectionTimeoutMillis: 5000 });
    await c.connect();
    let names: string[];
    try {
      names = (
        await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'tai42\\_bench\\_%'")
      ).rows.map((r) => r.datname);
    } finally {
      await c.end();
    }
    for (const name of names) {
      const pid = Number(/^tai42_bench_(\d+)_/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  }

  /** Removes the SQLite files of this run. */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
