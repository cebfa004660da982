import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { record, runStorageApp } from "./run-storage-fixture.ts";

/**
 * Run persistence, through the runtime, on SQLite by default and on PostgreSQL under
 * `npm run test:pg`.
 */

describe("run storage", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = runStorageApp();
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  describe("reading back", () => {
    it("should read back a retried run with every attempt in order", async () => {
      const run = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 2 },
        caller: as("USER"),
        door: "runtime",
      });
      expect(run.status).toBe("SUCCEEDED");

      const back = await rt.runs.get(run.id);
      expect(back).toMatchObject({
        id: run.id,
        tool: "wobbly",
        status: "SUCCEEDED",
        isError: false,
        errorKind: null,
        data: { attempt: 3 },
        door: "runtime",
        callerRole: "USER",
      });
      expect(back!.attempts.map((a) => [a.number, a.errorKind])).toEqual([
        [1, "UNAVAILABLE"],
        [2, "UNAVAILABLE"],
        [3, null],
      ]);
      expect(back!.attempts[0].errorMessage).toBe("unavailable on attempt 1");
      expect(back!.attempts[0].waitSeconds).toBeCloseTo(0.01);
      expect(back!.attempts[1].waitSeconds).toBeCloseTo(0.02);
      expect(back!.attempts[2].waitSeconds).toBeNull();
      for (const a of back!.attempts) expect(Date.parse(a.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt));
      expect(back!.retryPolicy).toMatchObject({ maxAttempts: 3, idempotent: true, declaredOn: "wobbly" });
      expect(back).toEqual(run);
    });

    it("should read back a run that exhausted its attempts as FAILED with the last error", async () => {
      const run = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 5 },
        caller: as("USER"),
        door: "runtime",
      });
      const back = await rt.runs.get(run.id);
      expect(back).toMatchObject({
        status: "FAILED",
        isError: true,
        errorKind: "UNAVAILABLE",
        errorMessage: "unavailable on attempt 3",
      });
      expect(back!.attempts).toHaveLength(3);
      expect(back!.finishedAt).not.toBeNull();
    });

    it("should keep JSON input and output exactly, including unicode, nesting and nulls", async () => {
      const value = {
        text: 'héllo — 世界 🚀 \\ "quoted"',
        nested: { list: [1, 2.5, -3, null, true, "x"], empty: {}, none: null },
        big: 2 ** 52,
      };
      const run = await rt.dispatcher.run({ tool: "echo_json", input: { value }, caller: as("USER"), door: "runtime" });
      const back = await rt.runs.get(run.id);
      expect(back!.input).toEqual({ value });
      expect(back!.data).toEqual({ value });
      expect(back!.content).toEqual(run.content);
    });

    it("should store NUL characters and lone surrogates of tool output as U+FFFD on either database, and refuse them in input as INVALID_INPUT", async () => {
      app.tool({ name: "nul_error", description: "Fails with a NUL in its message.", input: z.object({}) }, () => {
        throw new ToolError("bad\u0000byte", { kind: "UPSTREAM" });
      });
      const value = { "k\u0000ey": ["a\u0000b", "lone \ud800 high", "lone \udc00 low", "pair 🚀 kept"] };
      app.tool(
        { name: "nul_output", description: "Returns text no database stores as is.", input: z.object({}) },
        () => ({ value }),
      );
      const run = await rt.dispatcher.run({
        tool: "nul_output",
        input: {},
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "nul\u0000key",
      });
      expect(run.status).toBe("SUCCEEDED");
      const fixed = { "k\uFFFDey": ["a\uFFFDb", "lone \uFFFD high", "lone \uFFFD low", "pair 🚀 kept"] };
      const back = await rt.runs.get(run.id);
      expect(back!.data).toEqual({ value: fixed });
      const events = await rt.runs.events({ runId: run.id }, 0);
      expect(events.at(-1)!.run.data).toEqual({ value: fixed });
      const again = await rt.dispatcher.run({
        tool: "nul_output",
        input: {},
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "nul\u0000key",
      });
      expect(again.id).toBe(run.id);

      // Caller input that cannot be stored as given is refused, naming the path, and recorded storably.
      const refused = await rt.dispatcher.run({
        tool: "echo_json",
        input: { value },
        caller: as("USER"),
        door: "runtime",
      });
      expect(refused).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      expect(refused.errorMessage).toContain("/value/k\uFFFDey/0");
      expect((await rt.runs.get(refused.id))!.input).toEqual({ value: fixed });

      const failed = await rt.dispatcher.run({ tool: "nul_error", input: {}, caller: as("USER"), door: "runtime" });
      expect(await rt.runs.get(failed.id)).toMatchObject({
        status: "FAILED",
        errorKind: "UPSTREAM",
        errorMessage: "bad\uFFFDbyte",
      });
      const unknown = await rt.dispatcher.run({ tool: "no\u0000such", input: {}, caller: as("USER"), door: "runtime" });
      expect(await rt.runs.get(unknown.id)).toMatchObject({
        status: "FAILED",
        errorKind: "NOT_FOUND",
        tool: "no\uFFFDsuch",
      });
    });

    it("should return null for a run id that was never stored", async () => {
      expect(await rt.runs.get(randomUUID())).toBeNull();
    });
  });

  describe("listing", () => {
    it("should list newest first, ordering runs that started in the same instant by id descending", async () => {
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      const made = [
        record({ id: "a-1", startedAt: t(1) }),
        record({ id: "b-1", startedAt: t(1) }),
        record({ id: "c-2", startedAt: t(2) }),
        record({ id: "a-3", startedAt: t(3) }),
        record({ id: "z-3", startedAt: t(3) }),
        record({ id: "m-3", startedAt: t(3) }),
        record({ id: "d-0", startedAt: t(0) }),
      ];
      for (const r of made) await rt.runs.start(r, null, rt.instanceId);
      const listed = await rt.runs.list({ tool: "stored" }, 100);
      expect(listed.map((r) => r.id)).toEqual(["z-3", "m-3", "a-3", "c-2", "b-1", "a-1", "d-0"]);
    });

    it("should page with a (startedAt, id) cursor without gaps or repeats, even across ties", async () => {
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(s / 3))).toISOString();
      for (let i = 0; i < 17; i++)
        await rt.runs.start(record({ id: `run-${String(i).padStart(2, "0")}`, startedAt: t(i) }), null, rt.instanceId);
      const all = (await rt.runs.list({ tool: "stored" }, 100)).map((r) => r.id);
      expect(all).toHaveLength(17);

      const paged: string[] = [];
      let after: { startedAt: Date; id: string } | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await rt.runs.list({ tool: "stored" }, 4, after);
        paged.push(...page.map((r) => r.id));
        if (page.length < 4) break;
        const last = page.at(-1)!;
        after = { startedAt: new Date(last.startedAt), id: last.id };
      }
      expect(paged).toEqual(all);
    });

    it("should filter the list by tool and by status", async () => {
      const ok = await rt.dispatcher.run({
        tool: "echo_json",
        input: { value: 1 },
        caller: as("USER"),
        door: "runtime",
      });
      const failed = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 9 },
        caller: as("USER"),
        door: "runtime",
      });
      expect((await rt.runs.list({ tool: "echo_json" }, 10)).map((r) => r.id)).toEqual([ok.id]);
      expect((await rt.runs.list({ status: "FAILED" }, 10)).map((r) => r.id)).toEqual([failed.id]);
      expect(await rt.runs.list({ tool: "echo_json", status: "FAILED" }, 10)).toEqual([]);
      const both = await rt.runs.list({}, 10);
      expect(both.find((r) => r.id === failed.id)?.attempts).toHaveLength(3);
    });
  });

  describe("idempotency scopes", () => {
    it("should refuse a second run with a scope already taken and find the first by it", async () => {
      const scope = `key-user\u0000stored\u0000${randomUUID()}`;
      const first = record();
      expect(await rt.runs.start(first, scope, rt.instanceId)).toMatchObject({ type: "RUN_STARTED", runId: first.id });
      const second = record();
      expect(await rt.runs.start(second, scope, rt.instanceId)).toBeNull();
      expect((await rt.runs.byScope(scope))?.id).toBe(first.id);
      expect(await rt.runs.get(second.id)).toBeNull();
      expect(await rt.runs.events({ runId: second.id }, 0)).toEqual([]);
    });

    it("should allow any number of runs without a scope", async () => {
      for (let i = 0; i < 3; i++) expect(await rt.runs.start(record(), null, rt.instanceId)).not.toBeNull();
      expect(await rt.runs.list({ tool: "stored" }, 10)).toHaveLength(3);
    });

    it("should run the body once for concurrent dispatches with one key, and once per caller", async () => {
      let calls = 0;
      app.tool({ name: "counted", description: "Counts its calls.", input: z.object({}) }, async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        return "done";
      });
      const dispatch = (role: "USER" | "ADMIN") =>
        rt.dispatcher.run({ tool: "counted", input: {}, caller: as(role), door: "runtime", idempotencyKey: "once" });
      const runs = await Promise.all([
        dispatch("USER"),
        dispatch("USER"),
        dispatch("USER"),
        dispatch("ADMIN"),
        dispatch("ADMIN"),
      ]);
      expect(new Set(runs.slice(0, 3).map((r) => r.id)).size).toBe(1);
      expect(new Set(runs.slice(3).map((r) => r.id)).size).toBe(1);
      expect(runs[0].id).not.toBe(runs[3].id);
      expect(runs.every((r) => r.status === "SUCCEEDED")).toBe(true);
      expect(calls).toBe(2);
      expect(await rt.runs.list({ tool: "counted" }, 10)).toHaveLength(2);
    });
  });
});
