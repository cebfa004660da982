import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { park } from "../../src/interactions/park.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { databaseText } from "../helpers/database-text.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient } from "../graphql/support.ts";

/**
 * Issue 23, finding 3: a value a body redacts (`ctx.redact`) was stored in plaintext in the
 * run's input, its RUN_STARTED event and its first attempt before the body knew it, and
 * served from there after a restart. Now what the run stored before is rewritten scrubbed
 * (at the latest with its outcome), the SQLite files keep no old bytes (secure_delete, a
 * truncating WAL checkpoint), and a `writeOnly` input is scrubbed from the first write.
 */
/** One password per run: a run must not find its value already known from an earlier one. */
const PASSWORDS = {
  login_ok: "f23-hunter2-ok-x9",
  login_fail: "f23-hunter2-fail-x9",
  login_retry: "f23-hunter2-retry-x9",
  login_park: "f23-hunter2-park-x9",
  login_hang: "f23-hunter2-hang-x9",
};
const leaked = (text: string) => Object.values(PASSWORDS).filter((p) => text.includes(p));
const DECLARED = "f23-declared-s3cret-q7";

const Login = z.object({ user: z.string(), password: z.string() });

function loginApp(): App {
  const app = new App();
  app.tool(
    { name: "login_ok", description: "Logs in; redacts the password after reporting progress.", input: Login },
    async ({ user, password }, ctx) => {
      ctx.onUpdate({ message: `checking ${user}:${password}` });
      ctx.redact(password);
      return { ok: true, user };
    },
  );
  app.tool(
    { name: "login_fail", description: "Redacts the password, then fails quoting it.", input: Login },
    async ({ password }, ctx) => {
      ctx.redact(password);
      throw new ToolError(`the upstream refused ${password}`, { kind: "UPSTREAM", retryable: false });
    },
  );
  app.tool(
    {
      name: "login_retry",
      description: "Fails once quoting the password before redacting it, then redacts and fails again.",
      input: Login,
      retry: { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: 0.01 } },
    },
    async ({ password }, ctx) => {
      if (ctx.attempt > 1) ctx.redact(password);
      throw new ToolError(`could not reach the upstream as ${password}`, { kind: "UNAVAILABLE", retryable: true });
    },
  );
  app.tool(
    {
      name: "login_declared",
      description: "Declares its password writeOnly and never redacts it.",
      input: z.object({ user: z.string(), password: z.string().meta({ writeOnly: true }) }),
    },
    async ({ user, password }) => ({ ok: password.length > 0, user }),
  );
  app.tool(
    {
      name: "login_park",
      description: "Asks a question quoting the password, redacts it, then waits.",
      input: Login,
      pauses: true,
    },
    async ({ password }, ctx) => {
      const asked = await ctx.openInteraction({
        question: `Second factor for ${password}?`,
        answerFormat: { type: "string" },
      });
      ctx.redact(password);
      return park({ interactionIds: [asked.id] });
    },
  );
  app.tool(
    { name: "login_hang", description: "Redacts the password, then runs until cancelled.", input: Login },
    async ({ password }, ctx) => {
      ctx.redact(password);
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      throw ctx.signal.reason;
    },
  );
  return app;
}

const RUN_FIELDS = `id status input errorMessage content { text } data attempts { errorMessage } events { type run { input errorMessage attempts { errorMessage } } progress { message } }`;
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { ${RUN_FIELDS} } }`;

describe("a value a body redacts is scrubbed from everything its run stored before (issue 23, finding 3)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const open: TestRuntime[] = [];
  const start = async () => {
    const rt = await testRuntime({ databaseUrl: database.url, app: loginApp() });
    open.push(rt);
    return rt;
  };
  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    for (const rt of open.splice(0)) await rt.close();
    await database.drop();
  });

  it("should leave the password in no stored row, no database file and no read as owner or ADMIN after a restart, for a run that succeeded, failed, or retried then failed", async () => {
    const first = await start();
    const gql = gqlClient(first);
    const owner = await first.keys.create("owner", "USER");
    const admin = await first.keys.create("admin", "ADMIN");
    const ids: string[] = [];
    for (const [tool, status] of [
      ["login_ok", "SUCCEEDED"],
      ["login_fail", "FAILED"],
      ["login_retry", "FAILED"],
    ] as const) {
      const res = await gql<{ dispatch: { id: string; status: string } }>(
        DISPATCH,
        { tool, input: { user: "ada", password: PASSWORDS[tool] } },
        owner,
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.dispatch.status).toBe(status);
      expect(leaked(res.text)).toEqual([]);
      ids.push(res.data!.dispatch.id);
    }
    // The attempt before the redaction was stored with the password in its message (the search is not vacuous).
    expect((await first.runs.get(ids[2]))!.attempts.map((a) => a.errorMessage)).toEqual([
      "could not reach the upstream as [redacted]",
      "could not reach the upstream as [redacted]",
    ]);
    const rows = JSON.stringify([
      await first.db.run.findMany(),
      await first.db.runEvent.findMany(),
      await first.db.attempt.findMany(),
    ]);
    expect(rows).toContain("ada");
    expect(leaked(rows)).toEqual([]);
    // The WAL checkpoint runs after the rewrite, off the dispatch path: waited for, bounded.
    await until(
      "no database file to hold a password",
      async () => leaked(await databaseText(database.url)).length === 0,
      15_000,
    );
    await first.close();
    open.splice(0);

    const second = await start();
    const read = gqlClient(second);
    for (const key of [owner, admin]) {
      for (const id of ids) {
        const one = await read<{ run: { id: string } | null }>(
          `query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`,
          { id },
          key,
        );
        expect(one.data!.run?.id).toBe(id);
        expect(leaked(one.text)).toEqual([]);
      }
      const list = await read(`{ runs(first: 20) { edges { node { ${RUN_FIELDS} } } } }`, {}, key);
      expect(list.errors).toBeUndefined();
      expect(list.text).toContain("ada");
      expect(leaked(list.text)).toEqual([]);
    }
    const text = await databaseText(database.url);
    expect(text).toContain("could not reach the upstream as [redacted]");
    expect(leaked(text)).toEqual([]);
  });

  it("should leave the password in no stored row or database file for a run that parks (its question included) and one that is cancelled", async () => {
    const rt = await start();
    const gql = gqlClient(rt);
    const parked = await gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
      tool: "login_park",
      input: { user: "ada", password: PASSWORDS.login_park },
    });
    expect(parked.data!.dispatch.status).toBe("PARKED");
    const hanging = gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
      tool: "login_hang",
      input: { user: "ada", password: PASSWORDS.login_hang },
    });
    await until("the hanging run to be running", () => rt.dispatcher.runningCount === 1);
    const [id] = rt.dispatcher.runningIds();
    expect((await rt.dispatcher.cancel(id))?.status).toBe("CANCELLED");
    expect((await hanging).data!.dispatch.status).toBe("CANCELLED");
    const rows = JSON.stringify([
      await rt.db.run.findMany(),
      await rt.db.runEvent.findMany(),
      await rt.db.attempt.findMany(),
      await rt.db.interaction.findMany(),
    ]);
    expect(rows).toContain("Second factor for [redacted]?");
    expect(leaked(rows)).toEqual([]);
    await until(
      "no database file to hold a password",
      async () => leaked(await databaseText(database.url)).length === 0,
      15_000,
    );
  });

  it("should keep a writeOnly input out of every write and of the RUN_STARTED frame a runEvents subscriber receives", async () => {
    const rt = await start();
    const server = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");
    const client = wsClient(url);
    try {
      const sub = collect<{ runEvents: { type: string; run: { input: unknown } } }>(
        client,
        `subscription { runEvents(tool: "login_declared") { type run { input } } }`,
      );
      await until("the subscription to listen on the bus", () => rt.bus.listenerCount("runEvent") === 1);
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query: DISPATCH,
          variables: { tool: "login_declared", input: { user: "ada", password: DECLARED } },
        }),
      });
      const text = await res.text();
      expect(JSON.parse(text).data.dispatch).toMatchObject({
        status: "SUCCEEDED",
        input: { user: "ada", password: "[redacted]" },
      });
      const frames = await sub.waitForData(2);
      expect(frames.map((f) => f.runEvents.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
      expect(frames[0].runEvents.run.input).toEqual({ user: "ada", password: "[redacted]" });
      expect(JSON.stringify(frames)).not.toContain(DECLARED);
      expect(text).not.toContain(DECLARED);
      // Never learned globally: nothing to checkpoint away, nothing in any file.
      expect(await databaseText(database.url)).not.toContain(DECLARED);
      sub.stop();
    } finally {
      await client.dispose();
      await server.stop();
    }
  });

  it("should scrub a writeOnly input from a refused run's record too", async () => {
    const rt = await start();
    const res = await gqlClient(rt)(DISPATCH, { tool: "login_declared", input: { user: 42, password: DECLARED } });
    expect(res.data!.dispatch).toMatchObject({ status: "FAILED", input: { user: 42, password: "[redacted]" } });
    expect(JSON.stringify(await rt.db.run.findMany())).not.toContain(DECLARED);
    expect(res.text).not.toContain(DECLARED);
  });
});
