import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// docs/security-model.md §6: text neither database can store (NUL, lone surrogates) is
// refused before any write, naming the path, the same on SQLite and PostgreSQL; and no
// driver's class name or message ever reaches a client.

const NUL = "a\u0000b";
const LONE = "x\ud800y";
const DRIVER = /Prisma|DriverAdapter|DatabaseError|SqliteError|invalid byte sequence|unsupported Unicode/i;

describe("text neither database can store", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;

  beforeAll(async () => {
    const app = new App();
    app.tool({ name: "ask_any", description: "Parks until answered.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "anything?" }] }),
    );
    // A body that stores what it is given, as the demo kv_put does: its input is the guard.
    app.tool(
      { name: "raw_store", description: "Stores text in a skill.", input: z.object({ text: z.string() }) },
      async ({ text }) => {
        await rt.db.skill.create({ data: { name: `raw-${Date.now()}`, description: "d", instructions: text } });
        return "stored";
      },
    );
    app.tool({ name: "dup_skill", description: "Creates a skill that exists.", input: z.object({}) }, async () => {
      await rt.db.skill.create({ data: { name: "taken", description: "d", instructions: "i" } });
      return "created";
    });
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("text-admin", "ADMIN");
    user = await rt.keys.create("text-user", "USER");
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  const snapshot = async () =>
    JSON.stringify([
      await rt.db.preset.findMany(),
      await rt.db.manifest.findMany(),
      await rt.db.skill.findMany(),
      await rt.db.threadMessage.findMany(),
      await rt.db.agentRun.count(),
    ]);

  it("should refuse a preset whose description or baked value cannot be stored, naming the path, storing nothing", async () => {
    const before = await snapshot();
    for (const [input, path] of [
      [{ name: "p1", description: NUL, baseTool: "echo", fixedKwargs: {} }, "/description"],
      [{ name: "p2", description: "ok", baseTool: "echo", fixedKwargs: { text: LONE } }, "/fixedKwargs/text"],
    ] as const) {
      const r = await gql(`mutation($i: PresetInput!) { createPreset(input: $i) { name } }`, { i: input }, admin);
      expect(r.errors).toMatchObject([
        { extensions: { code: "BAD_USER_INPUT", issues: expect.arrayContaining([expect.objectContaining({ path })]) } },
      ]);
      expect(r.text).not.toMatch(DRIVER);
    }
    expect(await snapshot()).toBe(before);
  });

  it("should refuse a manifest whose description or document cannot be stored, naming the path, storing nothing", async () => {
    const before = await snapshot();
    const r = await gql(
      `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
      { i: { name: "m", description: LONE, document: { tools: { include: [NUL] } } } },
      admin,
    );
    expect(r.errors).toMatchObject([
      {
        extensions: {
          code: "BAD_USER_INPUT",
          issues: expect.arrayContaining([
            expect.objectContaining({ path: "/description" }),
            expect.objectContaining({ path: "/document/tools/include/0", message: expect.stringContaining("NUL") }),
          ]),
        },
      },
    ]);
    expect(r.text).not.toMatch(DRIVER);
    expect(await snapshot()).toBe(before);
  });

  it("should refuse skills and thread messages that cannot be stored, storing nothing", async () => {
    const before = await snapshot();
    const skill = await gql(
      `mutation { putSkill(input: { name: "s", description: "d", instructions: ${JSON.stringify(NUL)} }) { name } }`,
      {},
      admin,
    );
    expect(skill.errors).toMatchObject([
      { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/instructions" }] } },
    ]);
    const thread = await gql(
      `mutation($m: [JSONObject!]!) { appendThreadMessages(threadId: "t-nul", messages: $m) { id } }`,
      { m: [{ role: "user", content: LONE }] },
      user,
    );
    expect(thread.errors).toMatchObject([
      { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/messages/0/content" }] } },
    ]);
    const agent = await gql(
      `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`,
      { i: { userMessage: NUL } },
      user,
    );
    expect(agent.errors).toMatchObject([
      { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/userMessage" }] } },
    ]);
    for (const r of [skill, thread, agent]) expect(r.text).not.toMatch(DRIVER);
    expect(await snapshot()).toBe(before);
  });

  it("should refuse an answer to an interaction that cannot be stored, leaving the interaction pending", async () => {
    const parked = await gql<{ dispatch: { id: string; interactions: { id: string }[] } }>(
      `mutation { dispatch(input: { tool: "ask_any", input: {} }) { id interactions { id } } }`,
      {},
      user,
    );
    const id = parked.data!.dispatch.interactions[0].id;
    const r = await gql(
      `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { status } }`,
      { id, a: { note: NUL } },
      user,
    );
    expect(r.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/answer/note" }] } }]);
    expect(r.text).not.toMatch(DRIVER);
    expect((await rt.interactions.forRun(parked.data!.dispatch.id)).map((i) => i.status)).toEqual(["PENDING"]);
  });

  it("should fail a dispatch whose input cannot be stored as INVALID_INPUT naming the path, before the body runs", async () => {
    const r = await gql<{
      dispatch: { status: string; errorKind: string; errorMessage: string; details: { issues: { path: string }[] } };
    }>(
      `mutation($i: JSONObject!) { dispatch(input: { tool: "raw_store", input: $i }) { status errorKind errorMessage details } }`,
      { i: { text: NUL } },
      user,
    );
    expect(r.data!.dispatch).toMatchObject({
      status: "FAILED",
      errorKind: "INVALID_INPUT",
      details: { issues: [{ path: "/text" }] },
    });
    expect(r.text).not.toMatch(DRIVER);
    expect(await rt.db.skill.count()).toBe(0);
  });

  it("should never name a database driver's class when a tool body fails on the database", async () => {
    // A clean input the database still refuses (a duplicate key): the driver's error is the body's.
    await rt.db.skill.create({ data: { name: "taken", description: "d", instructions: "i" } });
    const r = await gql<{ dispatch: { status: string; errorKind: string; errorMessage: string } }>(
      `mutation { dispatch(input: { tool: "dup_skill", input: {} }) { status errorKind errorMessage } }`,
      {},
      user,
    );
    expect(r.data!.dispatch).toMatchObject({
      status: "FAILED",
      errorKind: "INTERNAL",
      errorMessage: "the tool failed unexpectedly (database error)",
    });
    expect(r.text).not.toMatch(DRIVER);
  });
});
