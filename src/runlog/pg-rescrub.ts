import type pg from "pg";
import type { Scrubber } from "../secrets/secrets.ts";
import { rescrubbed, rewriteCount, type StoredValues } from "./rescrub.ts";

/**
 * A late `ctx.redact` on PostgreSQL (`rescrub.ts`): run `runId`'s rows read (its row
 * locked) and the changed ones written back, on `client` inside the caller's transaction.
 * Returns how many rows it rewrote.
 */
export async function pgRescrub(client: pg.PoolClient, runId: string, scrubber: Scrubber): Promise<number> {
  const run = await client.query<NonNullable<StoredValues["run"]>>({
    name: "tai42-rescrub-run",
    text: `SELECT "input"::text AS "input","content"::text AS "content","data"::text AS "data","details"::text AS "details","errorMessage" FROM "Run" WHERE "id"=$1 FOR UPDATE`,
    values: [runId],
  });
  const events = await client.query<{ seq: number; snapshot: string }>({
    name: "tai42-rescrub-events",
    text: `SELECT "seq","snapshot"::text AS "snapshot" FROM "RunEvent" WHERE "runId"=$1`,
    values: [runId],
  });
  const attempts = await client.query<{ id: number; errorMessage: string | null }>({
    name: "tai42-rescrub-attempts",
    text: `SELECT "id","errorMessage" FROM "Attempt" WHERE "runId"=$1`,
    values: [runId],
  });
  const interactions = await client.query<{ id: string; question: string }>({
    name: "tai42-rescrub-interactions",
    text: `SELECT "id","question" FROM "Interaction" WHERE "runId"=$1`,
    values: [runId],
  });
  const w = rescrubbed(
    { run: run.rows[0] ?? null, events: events.rows, attempts: attempts.rows, interactions: interactions.rows },
    scrubber,
  );
  if (w.run)
    await client.query({
      name: "tai42-rescrub-write-run",
      text: `UPDATE "Run" SET "input"=$2::jsonb,"content"=$3::jsonb,"data"=$4::jsonb,"details"=$5::jsonb,"errorMessage"=$6 WHERE "id"=$1`,
      values: [runId, w.run.input, w.run.content, w.run.data, w.run.details, w.run.errorMessage],
    });
  if (w.events.length)
    await client.query({
      name: "tai42-rescrub-write-events",
      text: `UPDATE "RunEvent" e SET "snapshot"=v.snapshot FROM unnest($1::int[],$2::jsonb[]) AS v(seq,snapshot) WHERE e."seq"=v.seq`,
      values: [w.events.map((e) => e.seq), w.events.map((e) => e.snapshot)],
    });
  if (w.attempts.length)
    await client.query({
      name: "tai42-rescrub-write-attempts",
      text: `UPDATE "Attempt" a SET "errorMessage"=v.message FROM unnest($1::int[],$2::text[]) AS v(id,message) WHERE a."id"=v.id`,
      values: [w.attempts.map((a) => a.id), w.attempts.map((a) => a.errorMessage)],
    });
  if (w.interactions.length)
    await client.query({
      name: "tai42-rescrub-write-questions",
      text: `UPDATE "Interaction" q SET "question"=v.question FROM unnest($1::text[],$2::text[]) AS v(id,question) WHERE q."id"=v.id`,
      values: [w.interactions.map((q) => q.id), w.interactions.map((q) => q.question)],
    });
  return rewriteCount(w);
}
