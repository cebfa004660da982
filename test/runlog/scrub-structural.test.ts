import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Known secrets are scrubbed from what is stored (docs/security-model.md §3), but only
 * from values: a run's id, times and idempotency scope are not values a secret can be in,
 * and scrubbing a 4-character secret out of them corrupts the run.
 *
 * KNOWN DEFECT (not fixed here): the whole record is scrubbed, structural fields
 * included (`RunSettle.snapshot`, `LogWriter`, and the served GraphQL result too), so
 * once a PIN equal to the current year is redacted every run's startedAt becomes
 * "[redacted]-…" and cannot be stored (RangeError: Invalid time value): the instance
 * stores no run for the rest of the year. A 4-hex-digit secret corrupts run ids and
 * idempotency-scope digests the same way. `it.fails` until the fix; then drop `.fails`.
 */
describe("scrubbing a short secret out of a run's stored record", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "pin", description: "Redacts a PIN and answers.", input: z.object({ pin: z.string() }) }, async ({ pin }, ctx) => {
      ctx.redact(pin);
      return { ok: true };
    });
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  it.fails("should store and answer runs after a PIN equal to the current year was redacted", async () => {
    const year = String(new Date().getUTCFullYear());
    const first = await rt.dispatcher.run({ tool: "pin", input: { pin: year }, caller: as("USER"), door: "runtime" });
    const second = await rt.dispatcher.run({ tool: "pin", input: { pin: "0000" }, caller: as("USER"), door: "runtime" });
    expect([first.status, second.status]).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    expect((await rt.runs.get(second.id))?.startedAt).toBe(second.startedAt);
  });
});
