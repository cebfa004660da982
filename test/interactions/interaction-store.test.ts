import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { hashToken, InteractionStore } from "../../src/interactions/interaction-store.ts";
import { park } from "../../src/interactions/park.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * The interaction store over a real database, beside the runtime's own: interactions
 * belong to a run, so each test parks one first. Its bus records what it published.
 */
describe("the interaction store", () => {
  let rt: TestRuntime;
  let store: InteractionStore;
  let published: { topic: string; payload: Record<string, unknown> }[];
  let runId: string;

  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "hold", description: "Parks on one question.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "first?" }], state: { step: 1 } }),
    );
    rt = await testRuntime({ app });
    published = [];
    store = new InteractionStore(rt.db, (token) => `https://tai.example/callbacks/${token}`, {
      publish: (topic: string, payload: unknown) =>
        void published.push({ topic, payload: payload as Record<string, unknown> }),
    } as never);
    const run = await rt.dispatcher.run({ tool: "hold", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("PARKED");
    runId = run.id;
  });
  afterEach(() => rt.dispose());

  /**
   * Opens an interaction created in a later millisecond than every one before (the order reads go by creation time).
   */
  async function openLater(question: string) {
    const newest = Math.max(...(await store.forRun(runId)).map((i) => Date.parse(i.createdAt)));
    while (Date.now() <= newest) await new Promise((r) => setImmediate(r));
    return store.open(runId, "hold", { question });
  }

  it("should open a pending interaction addressed to a user by default, and publish it once", async () => {
    const opened = await store.open(runId, "hold", { question: "Proceed?" });
    expect(opened.callbackUrl).toBeUndefined();
    const stored = await store.get(opened.id);
    expect(stored).toMatchObject({
      id: opened.id,
      runId,
      tool: "hold",
      question: "Proceed?",
      to: "user",
      answerFormat: null,
      status: "PENDING",
      expiresAt: null,
      answer: null,
      callback: false,
    });
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ topic: "interaction", payload: { id: opened.id, status: "PENDING" } });
  });

  it("should hand out a callback URL once, store only its token's hash, and find the interaction by the token", async () => {
    const opened = await store.open(runId, "hold", { question: "External?", callback: true, to: "caller" });
    const token = opened.callbackUrl!.replace("https://tai.example/callbacks/", "");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await rt.db.interaction.findUniqueOrThrow({ where: { id: opened.id } });
    expect(row.callbackHash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await store.byToken(token))!.id).toBe(opened.id);
    expect(await store.byToken("x".repeat(43))).toBeNull();
    expect((await store.get(opened.id))!).toMatchObject({ callback: true, to: "caller" });
  });

  it("should accept one answer only, and publish the answered interaction without its answer", async () => {
    const { id } = await store.open(runId, "hold", { question: "PIN?" });
    published.length = 0;
    expect(await store.answer(id, { pin: "4242-secret" })).toBe(true);
    expect(await store.answer(id, { pin: "other" })).toBe(false);
    const stored = await store.get(id);
    expect(stored).toMatchObject({ status: "ANSWERED", answer: { pin: "4242-secret" } });
    expect(stored!.answeredAt).not.toBeNull();
    expect(published).toHaveLength(1);
    expect(published[0].payload.status).toBe("ANSWERED");
    expect(published[0].payload).not.toHaveProperty("answer");
    expect(JSON.stringify(published)).not.toContain("4242-secret");
  });

  it("should expire only pending interactions past their expiry at the time given, once, returning their runs", async () => {
    const soon = await store.open(runId, "hold", { question: "soon?", expiresInSeconds: 60 });
    const later = await store.open(runId, "hold", { question: "later?", expiresInSeconds: 3600 });
    const answered = await store.open(runId, "hold", { question: "done?", expiresInSeconds: 60 });
    await store.answer(answered.id, true);
    const inTwoMinutes = new Date(Date.now() + 120_000);
    expect(await store.expireDue(new Date())).toEqual([]);
    expect(await store.expireDue(inTwoMinutes)).toEqual([runId]);
    expect(await store.expireDue(inTwoMinutes)).toEqual([]);
    expect((await store.get(soon.id))!.status).toBe("EXPIRED");
    expect((await store.get(later.id))!.status).toBe("PENDING");
    expect((await store.get(answered.id))!.status).toBe("ANSWERED");
  });

  it("should cancel a run's open interactions and leave its closed ones as they are", async () => {
    const open = await store.open(runId, "hold", { question: "open?" });
    const done = await store.open(runId, "hold", { question: "done?" });
    await store.answer(done.id, 1);
    await store.cancelOpen(runId);
    const statuses = Object.fromEntries((await store.forRun(runId)).map((i) => [i.question, i.status]));
    expect(statuses).toEqual({ "first?": "CANCELLED", "open?": "CANCELLED", "done?": "ANSWERED" });
    expect(await store.answer(open.id, "late")).toBe(false);
  });

  it("should list a run's interactions oldest first, and all of them newest first, filtered by status", async () => {
    const second = await openLater("second?");
    await store.answer(second.id, "yes");
    expect((await store.forRun(runId)).map((i) => i.question)).toEqual(["first?", "second?"]);
    expect((await store.list()).map((i) => i.question)).toEqual(["second?", "first?"]);
    expect((await store.list("ANSWERED")).map((i) => i.question)).toEqual(["second?"]);
    expect((await store.list(undefined, 1, 1)).map((i) => i.question)).toEqual(["first?"]);
  });

  it("should be ready to resume only once every parked interaction is answered, with the park's state and the answers by id", async () => {
    const extra = await openLater("extra?");
    const [first] = await store.forRun(runId);
    await store.attachState(runId, [first.id, extra.id], { step: 2 });
    expect(await store.readyToResume(runId)).toBeNull();
    await store.answer(first.id, "a");
    expect(await store.readyToResume(runId)).toBeNull();
    await store.answer(extra.id, "b");
    expect(await store.readyToResume(runId)).toEqual({
      state: { step: 2 },
      answers: { [first.id]: "a", [extra.id]: "b" },
      ids: [first.id, extra.id],
    });
    await store.consume([first.id, extra.id]);
    expect(await store.readyToResume(runId)).toBeNull();
  });

  it("should leave cancelled interactions out of what a resume waits on", async () => {
    const [first] = await store.forRun(runId);
    const dropped = await openLater("dropped?");
    await store.attachState(runId, [first.id, dropped.id], "s");
    await store.answer(first.id, "a");
    await rt.db.interaction.update({ where: { id: dropped.id }, data: { status: "CANCELLED" } });
    expect(await store.readyToResume(runId)).toMatchObject({ state: "s", ids: [first.id] });
  });
});
