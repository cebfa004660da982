import { randomUUID } from "node:crypto";
import type { Client } from "graphql-ws";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient, type Collected } from "./support.ts";

// interactionsChanged: each interaction when it opens and when it closes, to whoever may
// see its run (docs/security-model.md §2), fed by the bus so it crosses instances.

const CHANGED = `subscription($runId: ID) { interactionsChanged(runId: $runId) { id runId tool question to status answer } }`;
const DISPATCH = `mutation($tool: String!) { dispatch(input: { tool: $tool, input: {} }) { id status } }`;

type Changed = {
  interactionsChanged: {
    id: string;
    runId: string;
    tool: string;
    question: string;
    to: string;
    status: string;
    answer: unknown;
  };
};

/** Tools that park: on a user's question, on one that expires at once. */
function parkingTools(): App {
  const app = new App();
  app.tool({ name: "ask", description: "Parks on one question.", input: z.object({}), pauses: true }, () =>
    park({ interactions: [{ question: "Go ahead?" }] }),
  );
  app.tool(
    {
      name: "ask_briefly",
      description: "Parks on a question that expires at once.",
      input: z.object({}),
      pauses: true,
    },
    () => park({ interactions: [{ question: "Quick?", expiresInSeconds: 0.001 }] }),
  );
  app.tool(
    { name: "ask_vault", description: "Asks for a secret.", input: z.object({}), tier: "secret", pauses: true },
    () => park({ interactions: [{ question: "The vault code?" }] }),
  );
  return app;
}

const SECRET = "vault-code-7c1e9a44";

describe("interactionsChanged over graphql-ws", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;
  let gql: ReturnType<typeof gqlClient>;
  const key: Record<string, string> = {};
  const clients: Client[] = [];

  const dispatch = async (who: string, tool: string) =>
    (await gql<{ dispatch: { id: string; status: string } }>(DISPATCH, { tool }, who)).data!.dispatch;
  const answer = (who: string, id: string) =>
    gql(`mutation($id: ID!) { answerInteraction(id: $id, answer: "yes") { status } }`, { id }, who);
  /** Subscribes as `who` and resolves once the server listens. */
  const subscribe = async (who: string, runId?: string): Promise<Collected<Changed>> => {
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${who}` } });
    clients.push(client);
    const before = rt.bus.listenerCount("interaction");
    const sub = collect<Changed>(client, CHANGED, runId ? { runId } : {});
    await until(
      "the subscription to listen",
      () => rt.bus.listenerCount("interaction") > before || sub.errors.length > 0,
    );
    return sub;
  };
  const statuses = (sub: Collected<Changed>) =>
    sub.data.map((d) => [d.interactionsChanged.runId, d.interactionsChanged.status]);

  beforeAll(async () => {
    rt = await testRuntime({ app: parkingTools() });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    gql = gqlClient(rt);
    for (const [name, role] of [
      ["admin", "ADMIN"],
      ["alice", "USER"],
      ["bob", "USER"],
    ] as const)
      key[name] = await rt.keys.create(`changes-${name}`, role);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    await until("the server to release every subscription", () => rt.bus.listenerCount("interaction") === 0);
  });
  afterAll(async () => {
    await server?.stop();
    await rt?.dispose();
  });

  it("should deliver an interaction when it opens (PENDING) and again when it is answered (ANSWERED)", async () => {
    const sub = await subscribe(key.alice);
    const run = await dispatch(key.alice, "ask");
    expect(run.status).toBe("PARKED");
    const [opened] = await sub.waitForData(1);
    expect(opened.interactionsChanged).toEqual({
      id: expect.any(String),
      runId: run.id,
      tool: "ask",
      question: "Go ahead?",
      to: "user",
      status: "PENDING",
      answer: null,
    });
    expect((await answer(key.alice, opened.interactionsChanged.id)).errors).toBeUndefined();
    const [, closed] = await sub.waitForData(2);
    expect(closed.interactionsChanged).toMatchObject({
      id: opened.interactionsChanged.id,
      status: "ANSWERED",
      answer: "yes",
    });
    expect(sub.errors).toEqual([]);
  });

  it("should deliver the closing of an interaction whose run was cancelled, and of one that expired", async () => {
    const sub = await subscribe(key.alice);
    const cancelled = await dispatch(key.alice, "ask");
    await sub.waitForData(1);
    await gql(`mutation($id: ID!) { cancelRun(id: $id) { status } }`, { id: cancelled.id }, key.alice);
    await sub.waitForData(2);
    const expiring = await dispatch(key.alice, "ask_briefly");
    await sub.waitForData(3);
    const [pending] = await rt.interactions.forRun(expiring.id);
    await until("the interaction's expiry to pass", () => Date.now() > Date.parse(pending.expiresAt!));
    // The runtime's sweep may expire it first; either way it closes once.
    await rt.interactions.expireDue();
    await sub.waitForData(4);
    expect(statuses(sub)).toEqual([
      [cancelled.id, "PENDING"],
      [cancelled.id, "CANCELLED"],
      [expiring.id, "PENDING"],
      [expiring.id, "EXPIRED"],
    ]);
  });

  it("should deliver to each caller only the interactions of runs it may see", async () => {
    const bobs = await subscribe(key.bob);
    const admins = await subscribe(key.admin);
    const alices = await dispatch(key.alice, "ask");
    const own = await dispatch(key.bob, "ask");
    await admins.waitForData(2);
    // In-process events arrive in publishing order: alice's came first, and were skipped.
    const [first] = await bobs.waitForData(1);
    expect(first.interactionsChanged.runId).toBe(own.id);
    expect(statuses(admins)).toEqual([
      [alices.id, "PENDING"],
      [own.id, "PENDING"],
    ]);
    expect(JSON.stringify(bobs.data)).not.toContain(alices.id);
  });

  it("should never carry an answer on the bus, and serve a SECRET tool's answer redacted", async () => {
    const published: unknown[] = [];
    const unlisten = rt.bus.listen("interaction", (i) => published.push(i));
    try {
      const sub = await subscribe(key.admin);
      await dispatch(key.admin, "ask_vault");
      const [opened] = await sub.waitForData(1);
      const answered = await gql(
        `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { status } }`,
        { id: opened.interactionsChanged.id, a: SECRET },
        key.admin,
      );
      expect(answered.errors).toBeUndefined();
      const [, closed] = await sub.waitForData(2);
      expect(closed.interactionsChanged).toMatchObject({ status: "ANSWERED", answer: "[redacted]" });
      expect(published).toHaveLength(2);
      expect(published.every((i) => !Object.hasOwn(i as object, "answer"))).toBe(true);
      expect(JSON.stringify([published, sub.data])).not.toContain(SECRET);
    } finally {
      unlisten();
    }
  });

  it("should end at once with NOT_FOUND when filtered on a run the caller may not see, and keep to the run it filters on", async () => {
    const alices = await dispatch(key.alice, "ask");
    const hidden = await subscribe(key.bob, alices.id);
    await hidden.waitForEnd();
    expect(hidden.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);

    const watched = await dispatch(key.alice, "ask");
    const filtered = await subscribe(key.alice, watched.id);
    await dispatch(key.alice, "ask");
    const [pending] = await rt.interactions.forRun(watched.id);
    await answer(key.alice, pending.id);
    const [only] = await filtered.waitForData(1);
    expect(only.interactionsChanged).toMatchObject({ runId: watched.id, status: "ANSWERED" });
  });

  it("should refuse the old String form of its status filter with BAD_USER_INPUT naming the enum", async () => {
    const r = await gql(`{ interactions(status: "PENDING") { id } }`, {}, key.alice);
    expect(r.errors).toMatchObject([
      { message: expect.stringContaining("InteractionStatus"), extensions: { code: "BAD_USER_INPUT" } },
    ]);
    const asEnum = await gql<{ interactions: { status: string }[] }>(
      `{ interactions(status: PENDING) { status } }`,
      {},
      key.alice,
    );
    expect(asEnum.errors).toBeUndefined();
    expect(asEnum.data!.interactions.every((i) => i.status === "PENDING")).toBe(true);
    // Over graphql-ws too, the validation error carries the code.
    const sub = collect(wsClient(url), `subscription { interactionsChanged(runId: 1, bogus: true) { id } }`);
    await sub.waitForEnd();
    expect(sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT" } }]);
  });
});

const shared = (await requirePostgres()) && (await requireRedis());

describe.skipIf(!shared)("interactionsChanged across instances (PostgreSQL and Redis)", () => {
  it("should deliver to a subscriber on one instance the interactions opened and answered on another", async () => {
    const db = await freshDatabase("postgres");
    const config = { redisUrl: redisTestUrl(), redisPrefix: `tai42-test-${randomUUID()}:` };
    const a = await testRuntime({ databaseUrl: db.url, config, app: parkingTools() });
    const b = await testRuntime({ databaseUrl: db.url, config, app: parkingTools() });
    const server = buildApp(a);
    const client = wsClient(await server.start(0, "127.0.0.1"));
    try {
      const sub = collect<Changed>(client, CHANGED);
      await until("the subscription to listen", () => a.bus.listenerCount("interaction") > 0);
      // Redis SUBSCRIBE is asynchronous: wait until instance a's subscription is in place.
      const redis = new Redis(redisTestUrl());
      await until(
        "instance a to subscribe to interactions on Redis",
        async () =>
          Number(((await redis.pubsub("NUMSUB", `${config.redisPrefix}interaction`)) as (string | number)[])[1]) >= 1,
        20_000,
      ).finally(() => redis.disconnect());
      const anonymous = { role: "USER" as const, keyName: null, keyId: null };
      const parked = await b.dispatcher.run({ tool: "ask", input: {}, caller: anonymous, door: "runtime" });
      const [opened] = (await sub.waitForData(1, 20_000)).map((d) => d.interactionsChanged);
      expect(opened).toMatchObject({ runId: parked.id, status: "PENDING", question: "Go ahead?" });
      await b.interactions.answer(opened.id, "yes", anonymous);
      await until(
        "its answer to arrive",
        () =>
          sub.data.some((d) => d.interactionsChanged.id === opened.id && d.interactionsChanged.status === "ANSWERED"),
        20_000,
      );
    } finally {
      await client.dispose();
      await server.stop();
      await a.dispose();
      await b.dispose();
      await db.drop();
    }
  });
});
