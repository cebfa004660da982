import { afterEach, describe, expect, it } from "vitest";
import { gql } from "../graphql/support.ts";
import { logs, startServer, type Started } from "./edge-support.ts";

/** `{ a: { a: … "x" } }`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let v: unknown = "x";
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Record<string, unknown>;
}

const DISPATCH = `mutation($input: JSONObject!) { dispatch(input: { tool: "echo", input: $input }) { id status errorKind errorMessage } }`;
interface Dispatched {
  dispatch: { id: string; status: string; errorKind: string | null; errorMessage: string | null };
}

describe("JSON input nested too deep", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  for (const levels of [65, 120, 20_000]) {
    it(`should refuse a dispatch whose input nests ${levels} levels as a recorded FAILED INVALID_INPUT run`, async () => {
      s = await startServer();
      // Written by hand: JSON.stringify itself overflows the stack on the deepest value.
      const extra = `${'{"a":'.repeat(levels - 1)}"x"${"}".repeat(levels - 1)}`;
      const res = await fetch(s.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"query":${JSON.stringify(DISPATCH)},"variables":{"input":{"text":"hi","extra":${extra}}}}`,
      });
      const body = (await res.json()) as { data: Dispatched; errors?: unknown };
      expect(body.errors).toBeUndefined();
      const run = body.data.dispatch;
      expect(run).toMatchObject({
        status: "FAILED",
        errorKind: "INVALID_INPUT",
        errorMessage: expect.stringContaining("nested deeper than 64 levels"),
      });
      expect(await s.rt.runs.get(run.id)).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      expect(logs(s.rt).filter((l) => l.level === "error")).toEqual([]);
    });
  }

  it("should let input of exactly 64 levels through the depth limit", async () => {
    s = await startServer();
    const r = await gql<Dispatched>(s.app, DISPATCH, { variables: { input: { text: "hi", extra: nested(63) } } });
    expect(r.body.data!.dispatch.errorMessage ?? "").not.toContain("nested deeper");
  });

  it("should refuse any other JSON argument nested too deep with BAD_USER_INPUT, as a variable or inline", async () => {
    s = await startServer();
    const createPreset = `mutation($k: JSONObject!) { createPreset(input: { name: "deep", description: "d", baseTool: "echo", fixedKwargs: $k }) { name } }`;
    const viaVariable = await gql(s.app, createPreset, { variables: { k: { text: nested(200) } } });
    let inline = '"x"';
    for (let i = 0; i < 100; i++) inline = `{ a: ${inline} }`;
    const viaLiteral = await gql(
      s.app,
      `mutation { createPreset(input: { name: "deep", description: "d", baseTool: "echo", fixedKwargs: ${inline} }) { name } }`,
    );
    for (const r of [viaVariable, viaLiteral]) {
      expect(r.body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringContaining("nested deeper than 64 levels"),
          extensions: expect.objectContaining({ code: "BAD_USER_INPUT" }),
        }),
      ]);
    }
    expect(await s.rt.db.preset.count()).toBe(0);
  });

  it("should refuse a callback body nested too deep with 400 before anything reads it", async () => {
    s = await startServer();
    const res = await fetch(new URL(`/callbacks/${"t".repeat(32)}`, s.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(nested(500)),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "BAD_USER_INPUT",
      error: expect.stringContaining("nested deeper than 64 levels"),
    });
  });
});
