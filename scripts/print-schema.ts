// Prints the Pothos schema to schema.graphql (checked in; test/graphql/schema-drift.test.ts fails on drift).
import { writeFileSync } from "node:fs";
import { printSchemaFile } from "../src/graphql/print.ts";

writeFileSync(new URL("../schema.graphql", import.meta.url), printSchemaFile());
console.log("wrote schema.graphql");
