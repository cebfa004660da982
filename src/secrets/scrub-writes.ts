import type { Scrubber } from "./secrets.ts";
import type { Db } from "../db/client.ts";
import { scrubRow } from "../db/value-columns.ts";

/** The write arguments that carry stored values. */
const WRITE_FIELDS = ["data", "create", "update"] as const;

type Query = (args: unknown) => Promise<unknown>;

/**
 * The storage boundary (docs/security-model.md §3): every write through the database
 * client (create, update, upsert, createMany, in a transaction or not) stores its values
 * with each known secret replaced by "[redacted]": only the value columns of its model
 * (`db/value-columns.ts`); ids, names, statuses and times are never rewritten. Reads are untouched. The run log's
 * statements bypass Prisma; its writer scrubs them itself (`runlog/log-writer.ts`).
 */
export function scrubbingWrites(db: Db, secrets: Scrubber): Db {
  const scrubbed = ({ model, args, query }: { model?: string; args: unknown; query: Query }) => {
    const a = args as Record<string, unknown> | undefined;
    if (!a || typeof a !== "object") return query(args);
    let out: Record<string, unknown> | null = null;
    for (const field of WRITE_FIELDS) {
      if (a[field] === undefined) continue;
      const clean = scrubRow(secrets, model, a[field]);
      if (clean !== a[field]) (out ??= { ...a })[field] = clean;
    }
    return query(out ?? args);
  };
  const writes = {
    create: scrubbed,
    createMany: scrubbed,
    createManyAndReturn: scrubbed,
    update: scrubbed,
    updateMany: scrubbed,
    updateManyAndReturn: scrubbed,
    upsert: scrubbed,
  };
  return db.$extends({ name: "tai42-scrub-writes", query: { $allModels: writes as never } }) as unknown as Db;
}
