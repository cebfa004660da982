import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { DOORS } from "../../src/dispatch/run-record.ts";
import { apiRefusal } from "../helpers/refusals.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * The access rules the chokepoint applies on every door (docs/security-model.md, "Where
 * access rules live"): dispatch bounds, and "may cancel = may see". GraphQL's own tests
 * pin its error shape; these hold for the doors without a resolver in front (the CLI, MCP,
 * agents, the runtime API).
 */

let rt: TestRuntime;
let bodies = 0;

beforeAll(async () => {
  const app = new App();
  app.tool({ name: "echo", description: "Echoes.", input: z.object({ text: z.string() }) }, ({ text }) => {
    bodies++;
    return { text };
  });
  app.tool(
    { name: "hang", description: "Runs until cancelled.", input: z.object({}), timeoutSeconds: 60 },
    (_input, ctx) => {
      return new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
      );
    },
  );
  rt = await testRuntime({ app });
});
afterAll(() => rt?.dispose());

/** The refusal `promise` ends with, as `{ code, message, issues }`. */
async function refusal(promise: Promise<unknown>) {
  const { code, message, issues } = await apiRefusal(promise);
  return { code, message, issues };
}

describe("dispatch bounds, at the chokepoint", () => {
  it.each(DOORS)(
    "should refuse a timeoutSeconds of 0 or NaN from the %s door as BAD_USER_INPUT, before any run exists",
    async (door) => {
      const before = { bodies, runs: await rt.runs.count({}) };
      for (const timeoutSeconds of [0, -1, Number.NaN]) {
        expect(
          await refusal(
            rt.dispatcher.run({ tool: "echo", input: { text: "x" }, caller: as("USER"), door, timeoutSeconds }),
          ),
        ).toEqual({
          code: "BAD_USER_INPUT",
          message: "timeoutSeconds must be > 0",
          issues: [{ path: "/timeoutSeconds", message: "must be > 0" }],
        });
      }
      expect({ bodies, runs: await rt.runs.count({}) }).toEqual(before);
    },
  );

  it.each(DOORS)(
    "should refuse an idempotency key of 0 or 201 characters from the %s door as BAD_USER_INPUT, before any run exists",
    async (door) => {
      const before = { bodies, runs: await rt.runs.count({}) };
      for (const idempotencyKey of ["", "k".repeat(201)]) {
        expect(
          await refusal(
            rt.dispatcher.run({ tool: "echo", input: { text: "x" }, caller: as("USER"), door, idempotencyKey }),
          ),
        ).toEqual({
          code: "BAD_USER_INPUT",
          message: "idempotencyKey must be 1 to 200 characters",
          issues: [{ path: "/idempotencyKey", message: "must be 1 to 200 characters" }],
        });
      }
      expect({ bodies, runs: await rt.runs.count({}) }).toEqual(before);
    },
  );

  it("should accept the bounds' edges: a 200-character key and a small timeout", async () => {
    const run = await rt.dispatcher.run({
      tool: "echo",
      input: { text: "edge" },
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "k".repeat(200),
      timeoutSeconds: 0.5,
    });
    expect(run).toMatchObject({ status: "SUCCEEDED", data: { text: "edge" } });
  });
});

describe("cancelling on a caller's behalf", () => {
  /** Starts `hang` as `caller` and resolves with its id once it is stored RUNNING, and the run's end. */
  async function hanging(caller = as("USER")): Promise<{ id: string; ended: Promise<unknown> }> {
    let id = "";
    const ended = rt.dispatcher.run({
      tool: "hang",
      input: {},
      caller,
      door: "runtime",
      onRun: (runId) => (id = runId),
    });
    await vi.waitFor(async () => expect((await rt.runs.get(id))?.status).toBe("RUNNING"));
    return { id, ended };
  }

  it("should answer NOT_FOUND, and leave the run running, when the caller may not see it", async () => {
    const { id, ended } = await hanging(as("USER"));
    for (const stranger of [callerOf("USER", "other", "key-other"), callerOf("USER"), as("READER")]) {
      expect(await refusal(rt.dispatcher.cancelFor(stranger, id))).toEqual({
        code: "NOT_FOUND",
        message: `no run with id "${id}"`,
        issues: [],
      });
    }
    expect((await rt.runs.get(id))?.status).toBe("RUNNING");
    expect(await rt.dispatcher.cancelFor(as("USER"), id)).toMatchObject({
      id,
      status: "CANCELLED",
      errorKind: "CANCELLED",
    });
    await ended;
  });

  it("should let an ADMIN cancel any caller's run", async () => {
    const { id, ended } = await hanging(callerOf("USER"));
    expect(await rt.dispatcher.cancelFor(as("ADMIN"), id)).toMatchObject({ id, status: "CANCELLED" });
    await ended;
  });

  it("should answer NOT_FOUND for a run that does not exist, as for a hidden one", async () => {
    expect(await refusal(rt.dispatcher.cancelFor(as("ADMIN"), "no-such-run"))).toEqual({
      code: "NOT_FOUND",
      message: 'no run with id "no-such-run"',
      issues: [],
    });
  });
});
