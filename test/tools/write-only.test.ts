import { describe, expect, it } from "vitest";
import { z } from "zod";
import { writeOnlyStrings } from "../../src/tools/write-only.ts";

/** The input's declared secrets (`writeOnly: true`), found wherever the schema puts them. */
describe("writeOnlyStrings", () => {
  it("should find the strings at writeOnly places of a zod schema's JSON Schema: properties, nested objects and array items", () => {
    const schema = z.toJSONSchema(
      z.object({
        user: z.string(),
        password: z.string().meta({ writeOnly: true }),
        nested: z.object({ token: z.string().meta({ writeOnly: true }), label: z.string() }),
        keys: z.array(z.string().meta({ writeOnly: true })),
        blob: z.object({ a: z.string(), b: z.array(z.string()) }).meta({ writeOnly: true }),
      }),
      { target: "draft-2020-12", io: "input" },
    ) as Record<string, unknown>;
    const input = {
      user: "ada-lovelace",
      password: "pw-one-1",
      nested: { token: "tok-two-2", label: "plain-label" },
      keys: ["key-three", "key-four"],
      blob: { a: "blob-a-5", b: ["blob-b-6"] },
    };
    expect(writeOnlyStrings(schema, input).sort()).toEqual([
      "blob-a-5",
      "blob-b-6",
      "key-four",
      "key-three",
      "pw-one-1",
      "tok-two-2",
    ]);
  });

  it("should follow local $refs (also recursive ones), anyOf branches, patternProperties and additionalProperties, without looping", () => {
    const schema = {
      type: "object",
      $defs: {
        node: {
          type: "object",
          properties: { secret: { type: "string", writeOnly: true }, child: { $ref: "#/$defs/node" } },
        },
      },
      properties: {
        tree: { $ref: "#/$defs/node" },
        either: { anyOf: [{ type: "number" }, { type: "string", writeOnly: true }] },
      },
      patternProperties: { "^x-": { type: "string", writeOnly: true } },
      additionalProperties: { type: "object", properties: { pin: { type: "string", writeOnly: true } } },
    };
    const input = {
      tree: { secret: "level-one", child: { secret: "level-two", child: {} } },
      either: "branch-value",
      "x-key": "pattern-value",
      other: { pin: "additional-pin" },
    };
    expect(writeOnlyStrings(schema, input).sort()).toEqual([
      "additional-pin",
      "branch-value",
      "level-one",
      "level-two",
      "pattern-value",
    ]);
  });

  it("should read an input the schema refuses, and find nothing where nothing is declared", () => {
    const schema = { type: "object", properties: { password: { type: "string", writeOnly: true } } };
    expect(writeOnlyStrings(schema, { password: ["not-a-string-but-secret"] })).toEqual(["not-a-string-but-secret"]);
    expect(
      writeOnlyStrings({ type: "object", properties: { password: { type: "string" } } }, { password: "plain-value" }),
    ).toEqual([]);
    expect(writeOnlyStrings(schema, "not an object")).toEqual([]);
  });
});
