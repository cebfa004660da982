import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** The doc's examples: each graphql block (first line "# as: ROLE") with the json block that follows it. */
function examples(markdown: string): { query: string; as: string; expected: unknown; line: number }[] {
  const blocks = [...markdown.matchAll(/```(graphql|json)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    body: m[2],
    line: markdown.slice(0, m.index).split("\n").length,
  }));
  const out = [];
  for (let i = 0; i < blocks.length; i++) {
    if (blocks[i].lang !== "graphql") continue;
    const next = blocks[i + 1];
    if (next?.lang !== "json")
      throw new Error(`the graphql example at line ${blocks[i].line} has no json block after it`);
    const as = /^# as: (\w+)/.exec(blocks[i].body)?.[1];
    if (!as) throw new Error(`the graphql example at line ${blocks[i].line} does not start with "# as: ROLE"`);
    out.push({ query: blocks[i].body, as, expected: JSON.parse(next.body), line: blocks[i].line });
  }
  return out;
}

const doc = readFileSync(new URL("../../docs/composing-the-surface.md", import.meta.url), "utf8");

describe("docs/composing-the-surface.md", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    rt = await testRuntime({ config: { demo: true } });
    gql = gqlClient(rt);
    keys.ADMIN = await rt.keys.create("doc-admin", "ADMIN");
    keys.USER = await rt.keys.create("doc-user", "USER");
  });
  afterAll(() => rt.dispose());

  it("should have examples", () => expect(examples(doc).length).toBeGreaterThan(10));

  for (const ex of examples(doc)) {
    it(`should answer the example at line ${ex.line} as documented`, async () => {
      const r = await gql(ex.query, {}, keys[ex.as]);
      const actual = { ...(r.data !== undefined ? { data: r.data } : {}), ...(r.errors ? { errors: r.errors } : {}) };
      if ((ex.expected as { data?: { tools?: unknown } }).data?.tools) {
        // The tools list in the doc is exhaustive for the selection: compare exactly.
        expect(actual).toEqual(ex.expected);
      } else expect(actual).toMatchObject(ex.expected as object);
    });
  }
});
