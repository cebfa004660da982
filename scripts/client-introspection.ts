// Writes src/client/graphql-env.ts: tai42's schema (schema.graphql) as the introspection
// type gql.tada reads, so `graphql()` from tai42/client types documents with no build step
// of the user's. Checked in; test/client/introspection-drift.test.ts fails when
// schema.graphql changed and this was not run again.
//
//   npm run client:introspection
//
// gql.tada's `.d.ts` format (preprocessed types, the fastest for the type checker) is
// written to a `.ts` file that holds only types: tsc then emits its declarations into
// dist/ like any other source, and the emitted JavaScript is empty. The introspection is
// named, so the file declares no global `gql.tada` setup that could clash with an app's own.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildSchema, introspectionFromSchema } from "graphql";
import { minifyIntrospection, outputIntrospectionFile } from "gql.tada/internal";

const SCHEMA = new URL("../schema.graphql", import.meta.url);
/** Where the generated introspection lives. */
export const OUTPUT = new URL("../src/client/graphql-env.ts", import.meta.url);

const PREAMBLE = [
  "/* eslint-disable */",
  "/* prettier-ignore */",
  "// Generated from schema.graphql by `npm run client:introspection`; do not edit by hand.",
  "",
].join("\n");

/** The contents of src/client/graphql-env.ts for the schema.graphql on disk. */
export function renderIntrospection(sdl = readFileSync(SCHEMA, "utf8")): string {
  const introspection = minifyIntrospection(introspectionFromSchema(buildSchema(sdl), { descriptions: false }));
  return (
    outputIntrospectionFile(
      { ...introspection, name: "tai42" },
      { fileType: ".d.ts", shouldPreprocess: true, preamble: PREAMBLE },
    ).trimEnd() + "\n"
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT, renderIntrospection());
  console.log("wrote src/client/graphql-env.ts");
}
