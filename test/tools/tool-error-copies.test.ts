import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { isToolError, ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * A tool module that loads its own copy of tai42 throws that copy's `ToolError`: another class than this process's.
 * The module is instantiated a second time through a different URL (a query), as a second copy of the package is.
 */
async function secondCopy(): Promise<typeof import("../../src/errors.ts")> {
  const url = new URL("../../src/errors.ts", import.meta.url);
  url.search = "?second-copy";
  return (await import(/* @vite-ignore */ url.href)) as typeof import("../../src/errors.ts");
}

describe("a ToolError from a second copy of the package", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = new App();
    rt = await testRuntime({ app, config: { demo: false } });
  });
  afterEach(() => rt.dispose());

  it("should be another class, yet recognised by its brand", async () => {
    const copy = await secondCopy();
    const thrown = new copy.ToolError("slow down", { kind: "RATE_LIMITED" });
    expect(copy.ToolError).not.toBe(ToolError);
    expect(thrown instanceof ToolError).toBe(false);
    expect(isToolError(thrown)).toBe(true);
    expect(isToolError(new Error("plain"))).toBe(false);
    expect(ToolError.fromUnknown(thrown).kind).toBe("RATE_LIMITED");
  });

  it("should keep its kind on the run the dispatcher stores", async () => {
    const copy = await secondCopy();
    app.tool({ name: "limited", description: "Throws the second copy's ToolError.", input: z.object({}) }, () => {
      throw new copy.ToolError("slow down", { kind: "RATE_LIMITED", retryable: false });
    });
    const run = await rt.dispatcher.run({ tool: "limited", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("FAILED");
    expect(run.errorKind).toBe("RATE_LIMITED");
    expect(run.errorMessage).toBe("slow down");
    expect((await rt.runs.get(run.id))?.errorKind).toBe("RATE_LIMITED");
  });
});
