import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./schema.ts";

/** The text of schema.graphql: the printed, sorted schema with a header. */
export function printSchemaFile(): string {
  return `# Printed from the Pothos schema by \`npm run schema:print\`; do not edit by hand.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
