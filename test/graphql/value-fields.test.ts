import { getNamedType, isObjectType } from "graphql";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema.ts";
import { STRUCTURE_TEXT_FIELDS, VALUE_TEXT_FIELDS } from "../../src/graphql/scrub-fields.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("which GraphQL fields are values (docs/security-model.md §3)", () => {
  it("should classify every String field of the schema as free text or structure", () => {
    const unclassified: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith("__")) continue;
      for (const field of Object.values(type.getFields()))
        if (
          getNamedType(field.type).name === "String" &&
          !VALUE_TEXT_FIELDS.has(field.name) &&
          !STRUCTURE_TEXT_FIELDS.has(field.name)
        )
          unclassified.push(`${type.name}.${field.name}`);
    }
    expect(unclassified).toEqual([]);
  });

  describe("a served run", () => {
    let rt: TestRuntime;
    beforeEach(async () => {
      rt = await testRuntime();
      rt.secrets.add("echo");
      rt.secrets.add("SUCCEEDED");
    });
    afterEach(() => rt.dispose());

    it("should serve its tool, status and door whole and its values scrubbed when the secrets equal them", async () => {
      const admin = await rt.keys.create("admin", "ADMIN");
      const r = await gqlClient(rt)(
        `mutation { dispatch(input: { tool: "echo", input: { text: "echo SUCCEEDED" } }) { tool status door input content { type text } } }`,
        {},
        admin,
      );
      expect(r.data!.dispatch).toEqual({
        tool: "echo",
        status: "SUCCEEDED",
        door: "graphql",
        input: { text: "[redacted] [redacted]" },
        content: [{ type: "text", text: "[redacted] [redacted]" }],
      });
    });
  });
});
