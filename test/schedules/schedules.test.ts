import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Schedule writes (docs/run-lifecycle.md §11.7): ADMIN only, optimistic versions, one refusal shape
 * (BAD_USER_INPUT, issues naming the field) and nothing stored on a refusal.
 */
describe("stored schedules over GraphQL", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let reader: string;
  let user: string;

  const PUT = `mutation($input: ScheduleInput!, $v: Int) { putSchedule(input: $input, expectedVersion: $v) {
    name tool input cron timeZone enabled version callerRole callerKey nextTickAt lastTickAt lastRun { id } } }`;
  const LIST = `{ schedules { name version } }`;
  const put = (input: Record<string, unknown>, v?: number, key = admin) => gql(PUT, { input, v }, key);

  beforeAll(async () => {
    const app = new App();
    app.tool({ name: "greet", description: "Greet.", input: z.object({ name: z.string() }) }, (i) => `hi ${i.name}`);
    app.tool(
      { name: "vault", description: "Secret tier.", input: z.object({ path: z.string() }), tier: "secret" },
      (i) => i.path,
    );
    app.tool(
      {
        name: "login",
        description: "Takes a password.",
        input: z.object({ password: z.string().meta({ writeOnly: true }) }),
      },
      () => "ok",
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    reader = await rt.keys.create("reader", "READER");
    user = await rt.keys.create("user", "USER");
  });
  afterAll(() => rt.dispose());

  it("should create, read, replace with the stored version and delete a schedule", async () => {
    const created = await put({ name: "hello", tool: "greet", input: { name: "Ada" }, cron: "*/5 * * * *" });
    expect(created.errors).toBeUndefined();
    const s = created.data!.putSchedule;
    expect(s).toMatchObject({ name: "hello", tool: "greet", timeZone: "UTC", enabled: true, version: 1 });
    expect(s).toMatchObject({ callerRole: "ADMIN", callerKey: "admin", lastTickAt: null, lastRun: null });
    expect(new Date(s.nextTickAt).getUTCMinutes() % 5).toBe(0);
    expect(new Date(s.nextTickAt).getTime()).toBeGreaterThan(Date.now());

    const taken = await put({ name: "hello", tool: "greet", input: { name: "Bo" }, cron: "* * * * *" });
    expect(taken.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    const stale = await put({ name: "hello", tool: "greet", input: { name: "Bo" }, cron: "* * * * *" }, 7);
    expect(stale.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    const replaced = await put({ name: "hello", tool: "greet", input: { name: "Bo" }, cron: "* * * * *" }, 1);
    expect(replaced.data!.putSchedule).toMatchObject({ version: 2, input: { name: "Bo" }, cron: "* * * * *" });
    const missing = await put({ name: "nobody", tool: "greet", input: { name: "Bo" }, cron: "* * * * *" }, 1);
    expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    const one = await gql(`{ schedule(name: "hello") { name version } }`, {}, admin);
    expect(one.data).toEqual({ schedule: { name: "hello", version: 2 } });
    expect((await gql(LIST, {}, admin)).data).toEqual({ schedules: [{ name: "hello", version: 2 }] });

    const del = `mutation($n: String!) { deleteSchedule(name: $n) }`;
    expect((await gql(del, { n: "hello" }, admin)).data).toEqual({ deleteSchedule: true });
    expect((await gql(del, { n: "hello" }, admin)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(LIST, {}, admin)).data).toEqual({ schedules: [] });
  });

  it.each([
    ["a bad cron", { cron: "every day" }, "/cron", /5, or 6 with seconds first/],
    ["a 7-field cron (years are not documented)", { cron: "0 0 * * * * 2027" }, "/cron", /has 7 fields/],
    ["a 6-field cron croner refuses", { cron: "x * * * * *" }, "/cron", /./],
    ["an unknown time zone", { timeZone: "Mars/Olympus" }, "/timeZone", /unknown time zone/],
    ["a name that is not wire-safe", { name: "no spaces" }, "/name", /must match/],
    ["a tool not on the surface", { tool: "nope" }, "/tool", /no tool named "nope"/],
    ["an input invalid for the tool", { input: { name: 3 } }, "/input/name", /./],
    ["a secret-tier tool", { tool: "vault", input: { path: "x" } }, "/tool", /secret-tier/],
    ["an input with a writeOnly field", { tool: "login", input: { password: "hunter2" } }, "/input", /writeOnly/],
  ])("should refuse %s with BAD_USER_INPUT naming the field, storing nothing", async (_what, change, path, message) => {
    const r = await put({ name: "bad", tool: "greet", input: { name: "Ada" }, cron: "* * * * *", ...change });
    expect(r.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const issue = r.errors![0]!.extensions!.issues!.find((i) => i.path === path);
    expect(issue?.message).toMatch(message);
    expect(r.text).not.toContain("hunter2");
    expect((await gql(LIST, {}, admin)).data).toEqual({ schedules: [] });
    expect(await rt.db.schedule.count()).toBe(0);
  });

  it("should refuse a negative expectedVersion with BAD_USER_INPUT on /expectedVersion, and accept @hourly", async () => {
    const r = await put({ name: "neg", tool: "greet", input: { name: "Ada" }, cron: "* * * * *" }, -1);
    expect(r.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(r.errors![0]!.extensions!.issues!.map((i) => i.path)).toContain("/expectedVersion");
    expect(await rt.db.schedule.count()).toBe(0);
    const hourly = await put({ name: "hourly", tool: "greet", input: { name: "Ada" }, cron: "@hourly" });
    expect(hourly.errors).toBeUndefined();
    await rt.db.schedule.deleteMany({ where: { name: "hourly" } });
  });

  it("should refuse a READER and a USER every query and mutation (FORBIDDEN)", async () => {
    for (const key of [reader, user]) {
      expect((await gql(LIST, {}, key)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      expect((await gql(`{ schedule(name: "x") { name } }`, {}, key)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      const r = await put({ name: "mine", tool: "greet", input: { name: "Ada" }, cron: "* * * * *" }, undefined, key);
      expect(r.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      const d = await gql(`mutation { deleteSchedule(name: "x") }`, {}, key);
      expect(d.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    }
    expect(await rt.db.schedule.count()).toBe(0);
  });

  it('should read the cron in its time zone: "0 9 * * *" in America/New_York is 09:00 there', async () => {
    const r = await put({
      name: "morning",
      tool: "greet",
      input: { name: "Ada" },
      cron: "0 9 * * *",
      timeZone: "America/New_York",
    });
    const next = new Date(r.data!.putSchedule.nextTickAt);
    const there = new Intl.DateTimeFormat("en-GB", {
      timeZone: "America/New_York",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(next);
    expect(there).toBe("09:00");
    expect(next.getUTCHours()).not.toBe(9);
    expect(next.getTime() - Date.now()).toBeGreaterThan(0);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    await gql(`mutation { deleteSchedule(name: "morning") }`, {}, admin);
  });

  it("should list a schedule's next ticks from its next tick on, none while paused, and refuse a count out of range", async () => {
    await put({ name: "quarter", tool: "greet", input: { name: "Ada" }, cron: "*/15 * * * *" });
    const read = (count: number) =>
      gql(`query($c: Int) { schedule(name: "quarter") { nextTickAt nextTicks(count: $c) } }`, { c: count }, admin);
    const r = await read(4);
    const s = r.data!.schedule as { nextTickAt: string; nextTicks: string[] };
    expect(s.nextTicks).toHaveLength(4);
    expect(s.nextTicks[0]).toBe(s.nextTickAt);
    const times = s.nextTicks.map((t) => new Date(t).getTime());
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(15 * 60_000);
    const wrong = await read(0);
    expect(wrong.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const v = (await gql(`{ schedule(name: "quarter") { version } }`, {}, admin)).data!.schedule.version as number;
    await put({ name: "quarter", tool: "greet", input: { name: "Ada" }, cron: "*/15 * * * *", enabled: false }, v);
    expect((await read(3)).data!.schedule.nextTicks).toEqual([]);
    await gql(`mutation { deleteSchedule(name: "quarter") }`, {}, admin);
  });
});
