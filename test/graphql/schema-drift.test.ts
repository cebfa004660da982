import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printSchemaFile } from "../../src/graphql/print.ts";

describe("schema.graphql", () => {
  it("should match the schema printed from the Pothos builder", () => {
    const checkedIn = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");
    const printed = printSchemaFile();
    if (checkedIn !== printed) {
      // Name the first differing line so that the failure says what drifted, not only that something did.
      const a = checkedIn.split("\n");
      const b = printed.split("\n");
      const i = a.findIndex((line, n) => line !== b[n]);
      const at = i === -1 ? a.length : i;
      expect.fail(
        `schema.graphql is out of date: run \`npm run schema:print\` and commit the result.\n` +
          `First difference at line ${at + 1}:\n  checked in: ${JSON.stringify(a[at] ?? "<end of file>")}\n  printed:    ${JSON.stringify(b[at] ?? "<end of file>")}`,
      );
    }
    expect(checkedIn).toBe(printed);
  });
});
