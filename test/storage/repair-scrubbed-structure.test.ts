import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { providerOf } from "../../src/db/client.ts";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const MIGRATION = "20261201200000_repair_scrubbed_structure";
const R = "[redacted]" as never;

/** Runs the repair migration's SQL over the database at `url` (both providers), as `prisma migrate deploy` does. */
async function repair(url: string): Promise<void> {
  const provider = providerOf(url);
  const sql = readFileSync(
    new URL(`../../prisma/${provider}/migrations/${MIGRATION}/migration.sql`, import.meta.url),
    "utf8",
  );
  if (provider === "sqlite") {
    const db = new Database(url.slice("file:".length));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Issue 23 finding 1: before the fix, a secret equal to a structural word was stored as
 * "[redacted]" in statuses, doors, roles, kinds and event types, and such a row broke
 * `runs` for everyone. The repair migration resets each to what the record can still be
 * known by (docs/run-lifecycle.md "Records repaired after the scrubbing bug").
 */
describe("the repair of records an earlier scrubbing bug damaged", () => {
  const open: TestRuntime[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const rt of open.splice(0)) await rt.close();
    for (const drop of drops.splice(0)) await drop();
  });
  const start = async (url: string) => {
    const rt = await testRuntime({ databaseUrl: url });
    open.push(rt);
    return rt;
  };
  const run = (fields: Partial<RunRecord>): RunRecord => ({
    ...newRun({ tool: "echo", input: { text: "hi" }, door: "graphql", callerRole: "USER", callerKey: null }),
    ...fields,
  });

  it("should make a run whose status read [redacted] FAILED with a message saying so, and its events and structure servable again", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const first = await start(database.url);
    // As the old writer stored them: the whole job scrubbed of "RUNNING", of "graphql" and "USER", of "UNAVAILABLE" and
    // "RUN_FINISHED".
    const lost = run({ status: R });
    await first.runs.start(lost, null, first.instanceId);
    const misfiled = run({ door: R, callerRole: R, tier: R });
    await first.runs.start(misfiled, null, first.instanceId);
    const startedAt = new Date().toISOString();
    await first.runs.attemptFailed(
      { ...misfiled, attempts: [] },
      { number: 1, startedAt, finishedAt: startedAt, errorKind: R, errorMessage: "down", waitSeconds: 0 },
    );
    await first.runs.finish(
      { ...misfiled, status: "SUCCEEDED", finishedAt: startedAt, content: [{ type: "text", text: "hi" }] },
      null,
      R,
    );
    await first.close();
    open.splice(0);

    await repair(database.url);

    const second = await start(database.url);
    const admin = await second.keys.create("admin", "ADMIN");
    const gql = gqlClient(second);
    const q = `query($id: ID!) { run(id: $id) { status errorKind errorMessage door callerRole attempts { errorKind } events { type run { status door callerRole } } } }`;
    const a = await gql(q, { id: lost.id }, admin);
    expect(a.errors).toBeUndefined();
    expect(a.data!.run).toMatchObject({
      status: "FAILED",
      errorKind: "INTERNAL",
      door: "graphql",
      callerRole: "USER",
      events: [{ type: "RUN_STARTED", run: { status: "RUNNING" } }],
    });
    expect(a.data!.run.errorMessage).toMatch(/damaged by an earlier scrubbing bug/);
    const b = await gql(q, { id: misfiled.id }, admin);
    expect(b.errors).toBeUndefined();
    expect(b.data!.run).toEqual({
      status: "SUCCEEDED",
      errorKind: null,
      errorMessage: null,
      door: "runtime",
      callerRole: "READER",
      attempts: [{ errorKind: "INTERNAL" }],
      events: [
        { type: "RUN_STARTED", run: { status: "RUNNING", door: "runtime", callerRole: "READER" } },
        { type: "ATTEMPT_FAILED", run: { status: "RUNNING", door: "runtime", callerRole: "READER" } },
        { type: "RUN_FINISHED", run: { status: "SUCCEEDED", door: "runtime", callerRole: "READER" } },
      ],
    });
    expect((await second.db.run.findUnique({ where: { id: misfiled.id } }))!.tier).toBeNull();
    const listed = await gql(`{ runs(first: 10) { edges { node { id status door callerRole } } } }`, {}, admin);
    expect(listed.errors).toBeUndefined();
    expect(listed.data!.runs.edges).toHaveLength(2);
  });
});
