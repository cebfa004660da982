import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/server/build-app.ts";
import { MAX_PRESET_LABELS, OTHER_PRESETS } from "../../src/ops/metrics.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { get, sample } from "./support.ts";

const CREATE = `mutation($i: PresetInput!) { createPreset(input: $i) { name } }`;
const DISPATCH = `mutation($t: String!) { dispatch(input: { tool: $t, input: {} }) { status } }`;
const PRESETS = 300;

/** Every sample line of the exposition text (the series), and those labelled `tool="<tool>"`. */
const series = (text: string, tool?: string) =>
  text.split("\n").filter((l) => /^tai42_/.test(l) && (tool === undefined || l.includes(`tool="${tool}"`)));

/**
 * `/metrics` label cardinality (docs/deploy.md §9): any USER may write presets, so preset
 * names have a label budget of their own; registered names stay labelled however many
 * presets a USER creates and dispatches.
 */
describe("/metrics: a USER cannot grow the series without bound", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it(`should count a USER's ${PRESETS} dispatched presets under at most ${MAX_PRESET_LABELS} names and ${OTHER_PRESETS}, registered names still labelled`, async () => {
    rt = await testRuntime();
    const server = buildApp(rt);
    const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    try {
      const gql = gqlClient(rt);
      const user = await rt.keys.create("preset-writer", "USER");
      expect(
        (await gql(`mutation { dispatch(input: { tool: "echo", input: { text: "x" } }) { status } }`, {}, user)).data,
      ).toEqual({ dispatch: { status: "SUCCEEDED" } });
      const before = (await get(`${base}/metrics`))!.text;
      const perTool = series(before, "echo").length;
      expect(perTool).toBeGreaterThan(10);

      for (let i = 0; i < PRESETS; i++) {
        const name = `p_${i}`;
        expect(
          (await gql(CREATE, { i: { name, baseTool: "echo", description: "d", fixedKwargs: { text: `t${i}` } } }, user))
            .errors,
        ).toBeUndefined();
        expect((await gql(DISPATCH, { t: name }, user)).data).toEqual({ dispatch: { status: "SUCCEEDED" } });
      }
      expect(
        (await gql(`mutation { dispatch(input: { tool: "echo", input: { text: "y" } }) { status } }`, {}, user)).data,
      ).toEqual({ dispatch: { status: "SUCCEEDED" } });

      const after = (await get(`${base}/metrics`))!.text;
      const presetLabels = new Set([...after.matchAll(/tool="(p_\d+)"/g)].map((m) => m[1]));
      expect(presetLabels.size).toBe(MAX_PRESET_LABELS);
      expect(
        sample(after, "tai42_dispatches_total", { tool: OTHER_PRESETS, status: "SUCCEEDED", door: "graphql" }),
      ).toBe(PRESETS - MAX_PRESET_LABELS);
      // The bound: the preset budget and its overflow label, each at most what one tool costs.
      expect(series(after).length - series(before).length).toBeLessThanOrEqual((MAX_PRESET_LABELS + 1) * perTool);
      expect(sample(after, "tai42_dispatches_total", { tool: "echo", status: "SUCCEEDED", door: "graphql" })).toBe(2);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
