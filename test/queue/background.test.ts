import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ApiError } from "../../src/errors.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** Tools for background runs: one that records what its body saw, one that waits for a release, a secret one. */
function app(seen: { key?: string; attempt: number }[], release: { open: boolean }) {
  const a = new App();
  a.tool(
    { name: "note", description: "Records its idempotency key.", input: z.object({ text: z.string() }), tier: "write" },
    async ({ text }, ctx) => (seen.push({ key: ctx.idempotencyKey, attempt: ctx.attempt }), { text }),
  );
  a.tool({ name: "held", description: "Waits for a release.", input: z.object({}) }, async (_i, ctx) => {
    while (!release.open && !ctx.signal.aborted) await new Promise((r) => setTimeout(r, 10));
    return { ok: true };
  });
  a.tool(
    { name: "vault", description: "A secret-tier tool.", input: z.object({ pin: z.string() }), tier: "secret" },
    async () => ({ ok: true }),
  );
  a.tool(
    {
      name: "login",
      description: "Declares its password writeOnly.",
      input: z.object({ user: z.string(), password: z.string().meta({ writeOnly: true }) }),
    },
    async ({ user }) => ({ user }),
  );
  return a;
}

const types = async (rt: TestRuntime, runId: string) => (await rt.runs.events({ runId }, 0)).map((e) => e.type);
const ended = (rt: TestRuntime, id: string) =>
  until(`run ${id} to end`, async () => !["QUEUED", "RUNNING"].includes((await rt.runs.get(id))!.status), 20_000);

describe("background runs", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.dispose().catch(() => {});
  });
  const seen: { key?: string; attempt: number }[] = [];
  const release = { open: false };
  async function start(options: Parameters<typeof testRuntime>[0] = {}) {
    seen.length = 0;
    release.open = false;
    const rt = await testRuntime({ app: app(seen, release), config: { demo: false }, ...options });
    runtimes.push(rt);
    return rt;
  }

  it("should answer a background dispatch at once with the run QUEUED, then execute it with the dispatch's idempotency key", async () => {
    const rt = await start();
    const run = await rt.dispatcher.run({
      tool: "note",
      input: { text: "hi" },
      caller: as("USER"),
      door: "graphql",
      idempotencyKey: "k-1",
      background: true,
    });
    expect(run).toMatchObject({ status: "QUEUED", tool: "note", finishedAt: null });
    await ended(rt, run.id);
    expect(await rt.runs.get(run.id)).toMatchObject({ status: "SUCCEEDED", data: { text: "hi" } });
    expect(seen).toEqual([{ key: "k-1", attempt: 1 }]);
    expect(await types(rt, run.id)).toEqual(["RUN_QUEUED", "RUN_STARTED", "RUN_FINISHED"]);
  });

  it("should answer a re-issued key with the first run at once, without waiting for it or running it again", async () => {
    const rt = await start();
    const req = { tool: "held", input: {}, caller: as("USER"), door: "graphql" as const, idempotencyKey: "same" };
    const first = await rt.dispatcher.run({ ...req, background: true });
    const again = await rt.dispatcher.run({ ...req, background: true });
    expect(again.id).toBe(first.id);
    expect(["QUEUED", "RUNNING"]).toContain(again.status);
    release.open = true;
    await ended(rt, first.id);
    expect(await rt.db.run.count()).toBe(1);
  });

  it("should refuse, before any run exists, a background run whose input cannot be stored as it is", async () => {
    const rt = await start();
    const bg = { caller: as("ADMIN"), door: "graphql" as const, background: true };
    const secret = rt.dispatcher.run({ ...bg, tool: "vault", input: { pin: "1234" } });
    await expect(secret).rejects.toBeInstanceOf(ApiError);
    await expect(secret).rejects.toMatchObject({ code: "BAD_USER_INPUT", message: /secret-tier/ });
    const declared = rt.dispatcher.run({ ...bg, tool: "login", input: { user: "u", password: "pw-123456" } });
    await expect(declared).rejects.toMatchObject({ code: "BAD_USER_INPUT", message: /holds a secret/ });
    expect(await rt.db.run.count()).toBe(0);
  });

  it("should fail a refused background request at once, as a synchronous one: unknown tool, forbidden tier, bad input", async () => {
    const rt = await start();
    const bg = { door: "graphql" as const, background: true };
    const unknown = await rt.dispatcher.run({ ...bg, tool: "nope", input: {}, caller: as("USER") });
    const forbidden = await rt.dispatcher.run({ ...bg, tool: "note", input: { text: "x" }, caller: as("READER") });
    const invalid = await rt.dispatcher.run({ ...bg, tool: "note", input: { text: 1 }, caller: as("USER") });
    expect([unknown, forbidden, invalid].map((r: RunRecord) => [r.status, r.errorKind])).toEqual([
      ["FAILED", "NOT_FOUND"],
      ["FAILED", "PERMISSION_DENIED"],
      ["FAILED", "INVALID_INPUT"],
    ]);
    expect(seen).toEqual([]);
  });

  it("should cancel a QUEUED run at once, and never run its body", async () => {
    // A one-shot runtime takes no queue work: its background run stays QUEUED.
    const rt = await start({ duties: "none" });
    const run = await rt.dispatcher.run({
      tool: "note",
      input: { text: "never" },
      caller: as("USER"),
      door: "graphql",
      background: true,
    });
    const cancelled = await rt.dispatcher.cancelFor(as("USER"), run.id);
    expect(cancelled).toMatchObject({ id: run.id, status: "CANCELLED", errorKind: "CANCELLED" });
    expect(await types(rt, run.id)).toEqual(["RUN_QUEUED", "RUN_FINISHED"]);
    expect(seen).toEqual([]);
  });

  it("should execute, after a restart of the one process, the background runs it left QUEUED", async () => {
    const db = await freshDatabase(testDbKind());
    const first = await start({ databaseUrl: db.url, duties: "none" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await first.dispatcher.run({
            tool: "note",
            input: { text: `n${i}` },
            caller: as("USER"),
            door: "graphql",
            background: true,
          })
        ).id,
      );
    await first.close();
    expect(seen).toEqual([]);
    const next = await start({ databaseUrl: db.url });
    for (const id of ids) await ended(next, id);
    expect((await next.runs.list({}, 10)).map((r) => r.status)).toEqual(Array(5).fill("SUCCEEDED"));
    expect(seen).toHaveLength(5);
    await db.drop();
  });
});
