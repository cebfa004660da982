import { describe, expect, it } from "vitest";
import { defineTool, type DefineToolFields } from "../../src/tools/define-tool.ts";
import { fields, refused } from "./define-tool-fixture.ts";

const without = (key: string) => {
  const f = fields() as unknown as Record<string, unknown>;
  delete f[key];
  return f;
};

describe("defineTool: one form, never both and never neither", () => {
  it("should build a tool from one mapping (a plain object)", () => {
    const def = defineTool(fields());
    expect(def).toMatchObject({ name: "word_count", label: "Word count", description: "Count the words in a string." });
    expect(def.parameters).toEqual(fields().parameters);
  });

  it("should build a tool from the keyword form", () => {
    expect(defineTool(undefined, fields()).name).toBe("word_count");
  });

  it("should accept a Map as the mapping", () => {
    const map = new Map<string, unknown>(Object.entries(fields()));
    const def = defineTool(map);
    expect(def.name).toBe("word_count");
    expect(def.execute).toBe(map.get("execute"));
  });

  it("should refuse both forms at once, saying so", () => {
    expect(refused("one-form", () => defineTool(fields(), fields()))).toContain("not both");
  });

  it("should refuse neither form, saying so", () => {
    expect(refused("one-form", () => defineTool())).toContain("neither");
  });

  it.each([
    ["a string", "word_count"],
    ["an array", [["name", "x"]]],
    ["a number", 42],
    ["null", null],
  ])("should refuse a mapping that is %s", (_label, value) => {
    expect(refused("one-form", () => defineTool(value as unknown as DefineToolFields))).toContain("mapping");
  });

  it("should apply the documented defaults", () => {
    const def = defineTool(fields());
    expect(def).toMatchObject({
      tier: "read",
      executionMode: "parallel",
      timeoutSeconds: 30,
      apiTool: true,
      module: "inline",
    });
    expect(def.retry).toBeUndefined();
    expect(def.outputSchema).toBeUndefined();
  });

  it("should return a frozen definition", () => {
    const def = defineTool(fields());
    expect(Object.isFrozen(def)).toBe(true);
  });

  it("should resolve a declared retry policy", () => {
    const def = defineTool(fields({ retry: { maxAttempts: 3, idempotent: true } }));
    expect(def.retry).toMatchObject({
      maxAttempts: 3,
      idempotent: true,
      retryableKinds: ["TIMEOUT", "RATE_LIMITED", "UNAVAILABLE", "NETWORK"],
    });
  });
});

describe("defineTool: unknown fields are rejected", () => {
  it("should name every unknown field", () => {
    const message = refused("unknown-field", () => defineTool(fields({ colour: "red", execution_mode: "parallel" })));
    expect(message).toContain('"colour"');
    expect(message).toContain('"execution_mode"');
  });

  it("should refuse an unknown key in a Map too", () => {
    const map = new Map<string, unknown>([...Object.entries(fields()), ["handler", () => 1]]);
    expect(refused("unknown-field", () => defineTool(map))).toContain('"handler"');
  });
});

describe("defineTool: required fields must be present and not empty", () => {
  it.each(["name", "description", "parameters", "execute"])("should refuse a missing %s, naming it", (key) => {
    expect(refused("required-field", () => defineTool(without(key)))).toContain(`"${key}"`);
  });

  it.each([
    ["name", ""],
    ["description", ""],
    ["description", "   "],
    ["parameters", {}],
    ["name", null],
    ["execute", null],
  ])("should refuse an empty %s (%j), naming it", (key, value) => {
    expect(refused("required-field", () => defineTool(fields({ [key]: value })))).toContain(`"${key}"`);
  });

  it("should treat a required field set to undefined as missing", () => {
    expect(refused("required-field", () => defineTool(fields({ description: undefined })))).toContain('"description"');
  });
});

describe("defineTool: the name must be wire-safe", () => {
  it("should accept a 64-character name", () => {
    expect(defineTool(fields({ name: "a".repeat(64) })).name).toHaveLength(64);
  });

  it.each(["fetch_page", "Fetch-Page-2", "X", "_", "0"])("should accept %j", (name) => {
    expect(defineTool(fields({ name })).name).toBe(name);
  });

  it.each([
    ["65 characters", "a".repeat(65)],
    ["a space", "fetch page"],
    ["a dot", "fetch.page"],
    ["a slash", "tools/fetch"],
    ["a colon", "ns:fetch"],
    ["a non-ASCII letter", "café"],
    ["a trailing newline", "fetch\n"],
  ])("should refuse a name with %s, quoting it and the pattern", (_label, name) => {
    const message = refused("wire-safe-name", () => defineTool(fields({ name })));
    expect(message).toContain(JSON.stringify(name));
    expect(message).toContain("^[A-Za-z0-9_-]{1,64}$");
  });

  it("should refuse a name that is not a string", () => {
    refused("wire-safe-name", () => defineTool(fields({ name: 42 })));
  });
});

describe("defineTool: parameters is an object JSON Schema that compiles", () => {
  it.each([
    ["root type string", { type: "string" }],
    ["no root type", { properties: { a: { type: "string" } } }],
    ["root type as a list", { type: ["object", "null"] }],
    ["an array", [{ type: "object" }]],
    ["a string", "object"],
  ])("should refuse %s, naming the root-type rule", (_label, parameters) => {
    const message = refused("object-schema", () => defineTool(fields({ parameters })));
    expect(message).toContain("word_count");
    expect(message).toContain('root type "object"');
  });

  it.each([
    ["properties that is not an object", { type: "object", properties: 5 }, "/parameters/properties"],
    [
      "a property with an unknown type",
      { type: "object", properties: { a: { type: "strng" } } },
      "/parameters/properties/a/type",
    ],
    ["required that is not a list", { type: "object", required: "a" }, "/parameters/required"],
    [
      "a negative minLength",
      { type: "object", properties: { a: { type: "string", minLength: -1 } } },
      "/parameters/properties/a/minLength",
    ],
  ])("should refuse a schema with %s (meta-validation), naming where", (_label, parameters, where) => {
    const message = refused("schema-compiles", () => defineTool(fields({ parameters })));
    expect(message).toContain("parameters is not a valid JSON Schema");
    expect(message).toContain(where);
  });

  it("should refuse a schema that passes meta-validation but does not compile (unresolvable $ref)", () => {
    const message = refused("schema-compiles", () =>
      defineTool(fields({ parameters: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } })),
    );
    expect(message).toContain("does not compile");
    expect(message).toContain("#/$defs/missing");
  });

  it("should refuse a schema written for a draft it cannot validate, naming the rule", () => {
    const message = refused("schema-compiles", () =>
      defineTool(fields({ parameters: { $schema: "http://json-schema.org/draft-04/schema#", type: "object" } })),
    );
    expect(message).toContain("draft-04");
  });

  it("should accept a schema that declares draft 2020-12", () => {
    const parameters = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "string" } },
    };
    expect(defineTool(fields({ parameters })).parameters).toBe(parameters);
  });

  it("should refuse an outputSchema that is not a valid JSON Schema, naming it", () => {
    const message = refused("schema-compiles", () => defineTool(fields({ outputSchema: { type: "nope" } })));
    expect(message).toContain("outputSchema");
    expect(message).toContain("/outputSchema/type");
  });
});

describe("defineTool: execute must be a function", () => {
  it.each([
    ["a string", "return 1"],
    ["an object", { run: () => 1 }],
    ["a number", 1],
  ])("should refuse execute as %s, naming it", (_label, execute) => {
    expect(refused("execute-function", () => defineTool(fields({ execute })))).toContain("execute must be a function");
  });

  it("should accept an async function", () => {
    expect(typeof defineTool(fields({ execute: async () => "ok" })).execute).toBe("function");
  });
});

describe("defineTool: optional fields are type-checked", () => {
  it.each([
    ["tier", "root", "tier must be one of read, write, fenced, secret"],
    ["executionMode", "serial", "executionMode must be"],
    ["timeoutSeconds", 0, "timeoutSeconds must be a number > 0"],
    ["timeoutSeconds", "5", "timeoutSeconds must be a number > 0"],
    ["label", 5, "label must be a string"],
    ["apiTool", "yes", "apiTool must be a boolean"],
  ])("should refuse %s = %j, naming it", (key, value, text) => {
    expect(refused("field-type", () => defineTool(fields({ [key]: value })))).toContain(text);
  });

  it("should keep the declared tier, mode, timeout and curation", () => {
    const def = defineTool(
      fields({ tier: "secret", executionMode: "sequential", timeoutSeconds: 2.5, apiTool: false }),
    );
    expect(def).toMatchObject({ tier: "secret", executionMode: "sequential", timeoutSeconds: 2.5, apiTool: false });
  });

  it("should name the retry-policy rule and the broken field for a bad policy", () => {
    expect(
      refused("retry-policy", () => defineTool(fields({ retry: { maxAttempts: 0, idempotent: true } }))),
    ).toContain("/maxAttempts");
  });
});
