import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("runs started through ctx.runTool", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = new App();
    app.tool(
      { name: "wait_forever", description: "Waits until aborted.", input: z.object({}), timeoutSeconds: 60 },
      (_i, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () =>
            reject(ctx.signal.reason ?? new ToolError("aborted", { kind: "CANCELLED" })),
          ),
        ),
    );
    app.tool(
      { name: "parent", description: "Runs wait_forever as a child.", input: z.object({}), timeoutSeconds: 60 },
      async (_i, ctx) => ctx.runTool("wait_forever", {}),
    );
    app.tool(
      { name: "impatient", description: "Times out while its child waits.", input: z.object({}), timeoutSeconds: 0.3 },
      async (_i, ctx) => ctx.runTool("wait_forever", {}),
    );
    app.tool({ name: "vault_read", description: "A secret-tier tool.", input: z.object({}), tier: "secret" }, () => ({
      token: "tok-3141592653589793",
    }));
    app.tool(
      { name: "leaky", description: "A read-tier tool that returns a secret child's output.", input: z.object({}) },
      async (_i, ctx) => (await ctx.runTool("vault_read", {})).data,
    );
    rt = await testRuntime({ app, config: { demo: false } });
  });
  afterEach(() => rt.dispose());

  const childOf = async (parentId: string) => {
    for (let i = 0; i < 100; i++) {
      const c = await rt.db.run.findFirst({ where: { parentRunId: parentId } });
      if (c) return c;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("no child run appeared");
  };

  it("should cancel a child run when its parent is cancelled", async () => {
    const pending = rt.dispatcher.run({ tool: "parent", input: {}, caller: as("USER"), door: "runtime" });
    let parentRow;
    for (let i = 0; i < 100 && !parentRow; i++) {
      parentRow = await rt.db.run.findFirst({ where: { tool: "parent" } });
      if (!parentRow) await new Promise((r) => setTimeout(r, 20));
    }
    const child = await childOf(parentRow!.id);
    await rt.dispatcher.cancel(parentRow!.id);
    expect((await pending).status).toBe("CANCELLED");
    const childRun = await rt.dispatcher.awaitFinal(child.id);
    expect(childRun).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED" });
  });

  it("should end a child run when its parent's attempt times out", async () => {
    const run = await rt.dispatcher.run({ tool: "impatient", input: {}, caller: as("USER"), door: "runtime" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    const child = await childOf(run.id);
    expect(await rt.dispatcher.awaitFinal(child.id)).toMatchObject({ status: "CANCELLED" });
  });

  it("should keep a secret-tier child's output out of a lower-tier parent's stored record", async () => {
    const run = await rt.dispatcher.run({ tool: "leaky", input: {}, caller: as("ADMIN"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
    const stored = JSON.stringify([run, await rt.db.run.findMany(), await rt.db.runEvent.findMany()]);
    expect(stored).not.toContain("tok-3141592653589793");
    expect(stored).toContain("[redacted]");
  });
});
