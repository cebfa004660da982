import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Known secrets are scrubbed from what is stored and served (docs/security-model.md §3),
 * but a run's id, times and idempotency scope are tokens the server makes, not values a
 * secret can be in: a secret is replaced in such a token only when it is the whole token.
 * (Before, a PIN equal to the current year turned every later startedAt into
 * "[redacted]-…", which the run log could not store.)
 */
describe("scrubbing a short secret out of a run's stored record", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    const app = new App();
    app.tool(
      { name: "pin", description: "Redacts a PIN and answers.", input: z.object({ pin: z.string() }) },
      async ({ pin }, ctx) => {
        ctx.redact(pin);
        return { ok: true };
      },
    );
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  it("should store and answer runs after a PIN equal to the current year was redacted", async () => {
    const year = String(new Date().getUTCFullYear());
    const first = await rt.dispatcher.run({ tool: "pin", input: { pin: year }, caller: as("USER"), door: "runtime" });
    const second = await rt.dispatcher.run({
      tool: "pin",
      input: { pin: "0000" },
      caller: as("USER"),
      door: "runtime",
    });
    expect([first.status, second.status]).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    expect((await rt.runs.get(second.id))?.startedAt).toBe(second.startedAt);
  });

  it("should keep run ids whole after a 4-hex-digit secret was redacted", async () => {
    const probe = await rt.dispatcher.run({ tool: "pin", input: { pin: "0000" }, caller: as("USER"), door: "runtime" });
    const hex = probe.id.slice(0, 4);
    await rt.dispatcher.run({ tool: "pin", input: { pin: hex }, caller: as("USER"), door: "runtime" });
    const again = await rt.dispatcher.run({ tool: "pin", input: { pin: "0000" }, caller: as("USER"), door: "runtime" });
    expect(probe.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await rt.runs.get(probe.id))?.id).toBe(probe.id);
    expect((await rt.runs.get(again.id))?.status).toBe("SUCCEEDED");
  });
});
