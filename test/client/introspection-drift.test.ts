import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OUTPUT, renderIntrospection } from "../../scripts/client-introspection.ts";

describe("src/client/graphql-env.ts", () => {
  it("should match the introspection generated from schema.graphql", () => {
    const checkedIn = readFileSync(OUTPUT, "utf8");
    const generated = renderIntrospection();
    if (checkedIn !== generated) {
      const a = checkedIn.split("\n");
      const b = generated.split("\n");
      const at = a.findIndex((line, n) => line !== b[n]);
      const shown = (line: string | undefined) =>
        JSON.stringify(line === undefined ? "<end of file>" : line.length > 160 ? `${line.slice(0, 160)}…` : line);
      expect.fail(
        "src/client/graphql-env.ts is out of date with schema.graphql: run `npm run client:introspection` and commit the result.\n" +
          `First difference at line ${at + 1}:\n  checked in: ${shown(a[at])}\n  generated:  ${shown(b[at])}`,
      );
    }
  });

  it("should change when schema.graphql changes", () => {
    const schema = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");
    const changed = schema.replace(/^type Viewer \{$/m, "type Viewer {\n  newField: String");
    expect(changed).not.toBe(schema);
    expect(renderIntrospection(changed)).toContain("'newField'");
    expect(renderIntrospection(changed)).not.toBe(renderIntrospection(schema));
  });
});
