import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ToolError } from "../../../src/errors.ts";
import type { UpstreamListing } from "../../../src/connectors/connector-kind.ts";
import { readListing } from "../../../src/connectors/openapi/openapi-kind.ts";

/** The published collection the importer is measured against. */
export const COLLECTION = join(import.meta.dirname, "../../../node_modules/@readme/oas-examples");

/** Every JSON and YAML document of the collection (its 2.0, 3.0 and 3.1 folders), by path relative to it. */
export function collectionDocuments(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(json|ya?ml)$/.test(name)) found.push(relative(COLLECTION, path));
    }
  };
  for (const version of ["2.0", "3.0", "3.1"]) walk(join(COLLECTION, version));
  return found;
}

export type Outcome = { file: string; listing: UpstreamListing } | { file: string; refusedDocument: string };

/**
 * Imports one document of the collection as a stored `document` setting; a refusal of the whole document is its reason.
 */
export async function importCollectionDocument(file: string): Promise<Outcome> {
  const text = readFileSync(join(COLLECTION, file), "utf8");
  const noFetch = (() => Promise.reject(new Error("a stored document fetches nothing"))) as typeof fetch;
  try {
    return { file, listing: await readListing({ document: text }, noFetch) };
  } catch (e) {
    if (e instanceof ToolError && e.message.startsWith("the OpenAPI document cannot be imported: "))
      return { file, refusedDocument: e.message };
    throw e;
  }
}
