import { describe, expect, it } from "vitest";
import type { UpstreamListing, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { readListing } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";

const noFetch = (() => Promise.reject(new Error("a stored document fetches nothing"))) as typeof fetch;
const importText = (document: string) => readListing({ document }, noFetch);
const tool = (listing: UpstreamListing, name: string): UpstreamTool => listing.tools.find((t) => t.name === name)!;
const props = (t: UpstreamTool) => t.inputSchema.properties as Record<string, Record<string, unknown>>;

const DOC_30 = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "rules", version: "1" },
  components: {
    schemas: {
      Thing: {
        type: "object",
        required: ["id", "name"],
        properties: {
          id: { type: "string", readOnly: true },
          name: { type: "string", nullable: true, example: "n" },
          size: { type: "integer", minimum: 5, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
          color: { type: "string", enum: ["red", "blue"], nullable: true },
        },
      },
    },
  },
  paths: {
    "/things/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      put: {
        operationId: "putThing",
        parameters: [
          { name: "id", in: "query", schema: { type: "integer" } },
          { name: "body", in: "query", schema: { type: "string" } },
          { name: "Accept", in: "header", schema: { type: "string" } },
        ],
        requestBody: {
          required: true,
          content: { "application/xml": {}, "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
        },
      },
      get: {
        operationId: "listThings",
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "array", items: { type: "string" } } } },
          },
        },
      },
      delete: { operationId: "putThing", responses: { "204": { description: "gone" } } },
      patch: {
        parameters: [{ name: "X-Odd", in: "header", style: "form", schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
    "/maybe": {
      post: {
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
          "204": { description: "nothing" },
        },
      },
    },
  },
});

describe("how an OpenAPI operation becomes a tool", () => {
  it("converts OpenAPI 3.0's dialect to JSON Schema 2020-12 (nullable, boolean exclusive bounds, example)", async () => {
    const body = props(tool(await importText(DOC_30), "putThing")).body!;
    const p = body.properties as Record<string, Record<string, unknown>>;
    expect(p.name).toEqual({ type: ["string", "null"], examples: ["n"] });
    expect(p.size).toEqual({ type: "integer", exclusiveMinimum: 5, maximum: 9 });
    expect(p.color).toEqual({ type: ["string", "null"], enum: ["red", "blue", null] });
  });

  it("does not require a readOnly property of a request, but does of a response", async () => {
    const t = tool(await importText(DOC_30), "putThing");
    expect(props(t).body!.required).toEqual(["name"]);
    expect(t.outputSchema!.required).toEqual(["id", "name"]);
  });

  it("names a parameter whose name is taken by its location (query.id, query.body) and skips the Accept header", async () => {
    const t = tool(await importText(DOC_30), "putThing");
    expect(Object.keys(props(t))).toEqual(["id", "query.id", "query.body", "body"]);
    expect(t.inputSchema.required).toEqual(["id", "body"]);
    expect(t.binding!.parameters).toEqual([
      { name: "id", in: "path", property: "id", style: "simple", explode: false },
      { name: "id", in: "query", property: "query.id", style: "form", explode: true },
      { name: "body", in: "query", property: "query.body", style: "form", explode: true },
    ]);
    expect(t.binding!.body).toEqual({ mediaType: "application/json", required: true, encoding: "json" });
    expect(t.inputSchema.additionalProperties).toBe(false);
  });

  it("refuses a second operation with the same operationId and a style its location does not admit, with reasons", async () => {
    const listing = await importText(DOC_30);
    expect(listing.refused).toEqual([
      { name: "putThing", reason: 'another operation of the document has the name "putThing" (operationId)' },
      {
        name: "PATCH /things/{id}",
        reason: 'the header parameter "X-Odd" has style "form", which tai42 does not send',
      },
    ]);
  });

  it("declares no output schema for an array answer, nor when a success may have no body", async () => {
    const listing = await importText(DOC_30);
    expect(tool(listing, "listThings").outputSchema).toBeUndefined();
    expect(tool(listing, "POST /maybe").outputSchema).toBeUndefined();
    expect(tool(listing, "POST /maybe").proposedTier).toBe("write");
    expect(tool(listing, "listThings").proposedTier).toBe("read");
  });

  it("keeps OpenAPI 3.1 schemas as they are, a $ref's siblings applied beside it", async () => {
    const doc = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      components: { schemas: { Id: { type: ["string", "null"] } } },
      paths: {
        "/x": {
          get: {
            operationId: "x",
            parameters: [
              { name: "id", in: "query", schema: { $ref: "#/components/schemas/Id", description: "the id" } },
            ],
            responses: {},
          },
        },
      },
    };
    expect(props(tool(await importText(JSON.stringify(doc)), "x")).id).toEqual({
      description: "the id",
      allOf: [{ type: ["string", "null"] }],
    });
  });

  const refusals: Array<[string, string, string]> = [
    [
      "a Swagger 2.0 document",
      "swagger: '2.0'\ninfo: { title: t, version: '1' }\npaths: {}\n",
      "OpenAPI 3.x only: this is a Swagger 2.0 document",
    ],
    ["an OpenAPI 4 document", '{"openapi": "4.0.0", "paths": {}}', "OpenAPI 3.x only: this document is version 4.0.0"],
    ["a YAML list", "- a\n- b\n", "it is not an object"],
    ["broken JSON", '{"openapi": ', "it is not valid JSON"],
    ["a document without a version", "info: { title: t }\n", "it has no `openapi` version field"],
    [
      "a stored document with an external $ref",
      JSON.stringify({
        openapi: "3.0.0",
        paths: { "/a": { get: { responses: { "200": { $ref: "other.yaml#/R" } } } } },
      }),
      "a stored document may only refer to itself",
    ],
  ];
  for (const [what, text, reason] of refusals) {
    it(`refuses ${what} as a whole, saying why`, async () => {
      const error = await importText(text).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toContain(reason);
    });
  }
});
