import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { databaseText } from "../helpers/database-text.ts";
import { decodedBase64Runs } from "../helpers/leaks.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Security model §3, the matching rules end to end: a tool returns (and logs) encodings
 * of a configured `!ENV` value it was baked with, and of a value it redacted itself. No
 * GraphQL response, log line or database byte (SQLite files incl. WAL, or every
 * PostgreSQL row) holds any covered form of either, whichever role asks.
 */
const ENV_SECRET = "enc-Secret/with+plus and=space 5b7c";
/** The value `redact_fresh` redacts for a seed: the test knows it, the seed in the stored input does not reveal it. */
const freshValue = (seed: string) => `fresh ${createHash("sha256").update(seed).digest("hex").slice(0, 16)}/v+1`;

const utf8 = (s: string) => Buffer.from(s, "utf8");

/** The covered forms of `s` a leaking tool would send, by name. */
function encodings(s: string, configured: boolean): Record<string, string> {
  const half = Math.ceil(s.length / 2);
  return {
    "as written": s,
    base64: utf8(s).toString("base64"),
    base64url: utf8(s).toString("base64url"),
    hex: utf8(s).toString("hex"),
    upperHex: utf8(s).toString("hex").toUpperCase(),
    url: encodeURIComponent(s),
    form: new URLSearchParams({ v: s }).toString().slice(2),
    upper: s.toUpperCase(),
    reversed: [...s].reverse().join(""),
    ...(configured ? { firstHalf: s.slice(0, half), lastHalf: s.slice(s.length - half) } : {}),
  };
}

/** Base64 texts holding `s` after 0, 1 and 2 other bytes (every alignment). */
const embedded = (s: string) =>
  ["", "a", "ab"].map((lead) => Buffer.concat([utf8(`note: ${lead}`), utf8(s), utf8(" end")]).toString("base64"));

/** Everything a tool leaks of `s`: the forms, the embedded base64, inside a sentence and a JSON value. */
const leakOf = (s: string, configured: boolean) => {
  const forms = encodings(s, configured);
  return { ...forms, embedded: embedded(s), sentence: `here: ${Object.values(forms).join(" | ")} done` };
};

describe("no covered encoding of a secret leaks (security model §3)", () => {
  let rt: TestRuntime;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const seen: string[] = [];
  let stored = "";
  const seeds = ["first", "second", "third"];

  beforeAll(async () => {
    process.env.EXT_ENC_SECRET = ENV_SECRET;
    const app = new App();
    app.tool(
      {
        name: "encode_back",
        description: "Answers and logs encodings of what it is given.",
        input: z.object({ secret: z.string() }),
      },
      ({ secret }, ctx) => {
        const leak = leakOf(secret, true);
        ctx.log.info(`leaking ${leak.sentence}`, { leak });
        return { content: [{ type: "text", text: leak.sentence }], data: leak };
      },
    );
    app.tool(
      {
        name: "redact_fresh",
        description: "Redacts a fresh value, then answers and logs its encodings.",
        input: z.object({ seed: z.string() }),
      },
      ({ seed }, ctx) => {
        const value = freshValue(seed);
        ctx.redact(value);
        const leak = leakOf(value, false);
        ctx.log.info(`leaking ${leak.sentence}`, { leak });
        return { content: [{ type: "text", text: leak.sentence }], data: leak };
      },
    );
    db = await freshDatabase();
    rt = await testRuntime({ app, databaseUrl: db.url });
    const admin = await rt.keys.create("encodings-admin", "ADMIN");
    const gql = gqlClient(rt);
    const ask = async (query: string, variables: Record<string, unknown> = {}, key?: string) => {
      const r = await gql(query, variables, key);
      seen.push(r.text);
      return r;
    };
    const preset = {
      name: "enc_env",
      description: "encodings of an !ENV value",
      baseTool: "encode_back",
      fixedKwargs: { secret: "!ENV EXT_ENC_SECRET" },
    };
    const made = await ask(`mutation($i: PresetInput!) { createPreset(input: $i) { name } }`, { i: preset }, admin);
    expect(made.errors, made.text).toBeUndefined();
    const RUN = "id status input data content { text } errorMessage";
    // Anonymous (USER on loopback) and ADMIN callers, each tool several times.
    for (const key of [undefined, admin]) {
      expect(
        (await ask(`mutation { dispatch(input: { tool: "enc_env", input: {} }) { ${RUN} } }`, {}, key)).data?.dispatch
          .status,
      ).toBe("SUCCEEDED");
      for (const seed of seeds)
        expect(
          (
            await ask(
              `mutation($i: JSONObject!) { dispatch(input: { tool: "redact_fresh", input: $i }) { ${RUN} } }`,
              { i: { seed } },
              key,
            )
          ).data?.dispatch.status,
        ).toBe("SUCCEEDED");
    }
    await ask(`{ runs(first: 50) { edges { node { ${RUN} events { type } } } } }`, {}, admin);
    await ask(`{ runs(first: 50) { edges { node { ${RUN} } } } }`);
    seen.push(...rt.logLines);
    await rt.close();
    stored = await databaseText(db.url);
  }, 120_000);

  afterAll(async () => {
    delete process.env.EXT_ENC_SECRET;
    await db?.drop();
  });

  const secrets = () => [
    { name: "the !ENV value", value: ENV_SECRET, configured: true },
    ...seeds.map((seed) => ({ name: `the value redacted for "${seed}"`, value: freshValue(seed), configured: false })),
  ];

  it("should have answered, logged and stored the runs (the search is not vacuous)", () => {
    const all = seen.join("\n");
    expect(all).toContain("[redacted]");
    expect(all).toContain("leaking here:");
    expect(stored).toContain("!ENV EXT_ENC_SECRET");
    expect(stored).toContain("redact_fresh");
  });

  for (const { name, value, configured } of secrets()) {
    for (const [form, text] of Object.entries(encodings(value, configured))) {
      it(`should never serve, log or store ${name} ${form}`, () => {
        const needle = text.toLowerCase();
        expect(seen.filter((s) => s.toLowerCase().includes(needle)).map((s) => s.slice(0, 80))).toEqual([]);
        expect(stored.toLowerCase().includes(needle)).toBe(false);
      });
    }

    it(`should never serve, log or store ${name} base64'd inside a longer text, at any alignment`, () => {
      const middle = value.slice(2, -2);
      for (const text of [...seen, stored]) expect(decodedBase64Runs(text).some((d) => d.includes(middle))).toBe(false);
    });
  }
});
