import { describe, expect, it } from "vitest";
import { schemaProblems } from "../../../src/tools/json-schema.ts";
import type { UpstreamListing } from "../../../src/connectors/connector-kind.ts";
import { collectionDocuments, importCollectionDocument, type Outcome } from "./collection.ts";

/** What importing the whole published collection (@readme/oas-examples) gives; quoted in docs/connectors.md §9. */
const EXPECTED = { documents: 129, imported: 115, refusedDocuments: 14, operations: 1209, refusedOperations: 58 };

/** Refused operations by the start of their reason. */
const EXPECTED_REFUSALS: Record<string, number> = {
  "its request body is multipart/form-data: multipart bodies (file uploads) are not sent by tai42": 48,
  "its request body is application/octet-stream": 2,
  "its request body is image/png": 2,
  "its input schema is not valid JSON Schema 2020-12": 6,
};

describe("importing every document of @readme/oas-examples (2.0, 3.0, 3.1; JSON and YAML)", () => {
  const outcomes: Outcome[] = [];
  const listings = () => outcomes.flatMap((o) => ("listing" in o ? [o.listing] : [])) as UpstreamListing[];

  it(`imports ${EXPECTED.imported} of ${EXPECTED.documents} documents and refuses ${EXPECTED.refusedDocuments} as a whole, none with an unexpected error`, async () => {
    for (const file of collectionDocuments()) outcomes.push(await importCollectionDocument(file));
    expect(outcomes.length).toBe(EXPECTED.documents);
    expect(listings().length).toBe(EXPECTED.imported);
    const refused = outcomes.flatMap((o) => ("refusedDocument" in o ? [o] : []));
    expect(refused.length).toBe(EXPECTED.refusedDocuments);
    // Every refused document is a Swagger 2.0 one, and says so.
    for (const r of refused) {
      expect(r.file.startsWith("2.0/")).toBe(true);
      expect(r.refusedDocument).toContain("OpenAPI 3.x only: this is a Swagger 2.0 document");
    }
    expect(outcomes.filter((o) => o.file.startsWith("2.0/") && "listing" in o)).toEqual([]);
  }, 300_000);

  it(`imports ${EXPECTED.operations} operations and refuses ${EXPECTED.refusedOperations}, each refusal with its reason`, () => {
    const tools = listings().flatMap((l) => l.tools);
    const refused = listings().flatMap((l) => l.refused);
    expect(tools.length).toBe(EXPECTED.operations);
    expect(refused.length).toBe(EXPECTED.refusedOperations);
    const byReason: Record<string, number> = {};
    for (const r of refused) {
      const key = Object.keys(EXPECTED_REFUSALS).find((k) => r.reason.startsWith(k)) ?? r.reason;
      byReason[key] = (byReason[key] ?? 0) + 1;
    }
    expect(byReason).toEqual(EXPECTED_REFUSALS);
  });

  it("gives every imported operation an object input schema and output schema that compile as JSON Schema 2020-12", () => {
    for (const tool of listings().flatMap((l) => l.tools)) {
      expect(tool.inputSchema.type).toBe("object");
      expect(schemaProblems(tool.inputSchema)).toEqual([]);
      if (tool.outputSchema) {
        expect(tool.outputSchema.type).toBe("object");
        expect(schemaProblems(tool.outputSchema)).toEqual([]);
      }
      expect(tool.proposedTier).toBe(
        ["GET", "HEAD", "OPTIONS"].includes(tool.binding!.method as string) ? "read" : "write",
      );
    }
  });

  it("names an operation without an operationId by its method and path (3.0/json/petstore-simple-no-tags.json)", () => {
    const simple = outcomes.find((o) => o.file === "3.0/json/petstore-simple-no-tags.json") as {
      listing: UpstreamListing;
    };
    expect(simple.listing.tools.map((t) => t.name)).toEqual(["GET /pet/{id}", "PUT /pet/{id}"]);
  });

  it("represents a circular schema with $defs (3.0/json/circular-request-bodies.json)", () => {
    const circular = outcomes.find((o) => o.file === "3.0/json/circular-request-bodies.json") as {
      listing: UpstreamListing;
    };
    const tree = circular.listing.tools.find((t) => t.name === "directCircular")!;
    const body = (tree.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).body;
    expect(body.properties.parent).toEqual({ $ref: "#/$defs/TreeNode" });
    expect((tree.inputSchema.$defs as Record<string, { title: string }>).TreeNode.title).toBe("TreeNode");
    expect(tree.outputSchema?.$defs).toHaveProperty("TreeNode");
  });
});
