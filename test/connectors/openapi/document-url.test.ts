import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { connectorEnv, json, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

/** What the server's /specs/ folder holds; a test may change it between reads. */
const files: Record<string, string> = {};
const main = (extraPath = "") => `
openapi: 3.0.3
info: { title: by url, version: "1" }
servers: [{ url: /api }]
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "./schemas/pet.yaml#/Pet" } } } }
${extraPath}`;

describe("an OpenAPI document read from documentUrl at every connect and list", () => {
  let upstream: Upstream;
  const settings = () => ({ documentUrl: `${upstream.url}/specs/main.yaml` });

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (path.startsWith("/specs/") && files[path.slice(7)] !== undefined) {
        res.writeHead(200, { "content-type": "application/yaml" });
        return res.end(files[path.slice(7)]);
      }
      if (path === "/api/pets/3") return json(res, 200, { id: 3, name: "Tom" });
      json(res, 404, { message: "nothing here" });
    });
    files["main.yaml"] = main();
    files["schemas/pet.yaml"] =
      "Pet:\n  type: object\n  required: [id]\n  properties: { id: { type: integer }, name: { type: string } }\n";
    files["outside.yaml"] =
      "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      responses: { '200': { $ref: '../secret.yaml#/R' } }\n";
  });
  afterAll(async () => upstream?.close());

  it("bundles an external $ref under the document's folder, and resolves a relative server against the document URL", async () => {
    const connection = await openapiKind.connect(connectorEnv(settings()));
    const [pet] = (await connection.list()).tools;
    expect(pet!.outputSchema).toMatchObject({ type: "object", required: ["id"] });
    expect(pet!.binding!.server).toBe(`${upstream.url}/api`);
    const result = normalizeResult("getPet", await connection.call(pet!, { id: 3 }, upstreamCall()));
    expect(result.data).toEqual({ id: 3, name: "Tom" });
    expect(upstream.received.map((r) => r.url)).toEqual(["/specs/main.yaml", "/specs/schemas/pet.yaml", "/api/pets/3"]);
  });

  it("reads the document again on a later list, so a refresh sees a new operation", async () => {
    files["main.yaml"] = main();
    const connection = await openapiKind.connect(connectorEnv(settings()));
    expect((await connection.list()).tools.map((t) => t.name)).toEqual(["getPet"]);
    files["main.yaml"] = main("  /ping:\n    get: { operationId: ping, responses: { '200': { description: ok } } }\n");
    expect((await connection.list()).tools.map((t) => t.name)).toEqual(["getPet", "ping"]);
  });

  it("refuses an external $ref outside the document's folder without fetching it", async () => {
    const before = upstream.received.length;
    const error = await openapiKind
      .connect(connectorEnv({ documentUrl: `${upstream.url}/specs/outside.yaml` }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain("is outside the document's folder");
    expect(upstream.received.slice(before).map((r) => r.url)).toEqual(["/specs/outside.yaml"]);
  });

  it("fails the connect UNAVAILABLE, naming the status, when the document URL answers 404", async () => {
    const error = await openapiKind
      .connect(connectorEnv({ documentUrl: `${upstream.url}/specs/missing.yaml` }))
      .catch((e: unknown) => e);
    expect([(error as ToolError).kind, (error as ToolError).message]).toEqual([
      "UNAVAILABLE",
      `the OpenAPI document at ${upstream.url}/specs/missing.yaml could not be fetched: HTTP 404`,
    ]);
  });
});

describe("the openapi kind's settings", () => {
  const issues = (settings: unknown) => {
    const parsed = openapiKind.settings.safeParse(settings);
    return parsed.success ? [] : parsed.error.issues.map((i) => `/${i.path.join("/")}: ${i.message}`);
  };

  it("wants exactly one of document and documentUrl", () => {
    expect(issues({})).toEqual(["/document: exactly one of document and documentUrl is required"]);
    expect(issues({ document: "x", documentUrl: "https://a.example/o.json" })).toEqual([
      "/document: exactly one of document and documentUrl is required",
    ]);
    expect(
      issues({
        document: "openapi: 3.0.0",
        headers: { Authorization: "!ENV TOKEN" },
        timeoutSeconds: 5,
        allowPrivateNetwork: true,
      }),
    ).toEqual([]);
  });

  it("refuses a relative serverUrl without a documentUrl, an unknown setting and a bad header name", () => {
    expect(issues({ document: "x", serverUrl: "/api" })).toEqual([
      "/serverUrl: must be an absolute http(s) URL (no documentUrl to resolve it against)",
    ]);
    expect(issues({ documentUrl: "https://a.example/specs/o.json", serverUrl: "../api" })).toEqual([]);
    expect(issues({ document: "x", token: "t" })).toEqual(["/: is not an openapi setting"]);
    expect(issues({ document: "x", headers: { "bad header": "!ENV X" } })[0]).toMatch(/^\/headers\/bad header: /);
  });

  it("seals every header and reaches the document's, the server's or the stored document's servers' origins", () => {
    expect(openapiKind.sealed).toEqual(["headers/*"]);
    expect(openapiKind.origins({ documentUrl: "https://docs.example/specs/o.json", serverUrl: "../api" })).toEqual([
      "https://docs.example",
    ]);
    expect(
      openapiKind.origins({ documentUrl: "https://docs.example/o.json", serverUrl: "https://api.example/v1" }),
    ).toEqual(["https://docs.example", "https://api.example"]);
    const stored =
      "openapi: 3.0.0\nservers: [{ url: 'https://{region}.api.example/v1', variables: { region: { default: eu } } }]\npaths:\n  /a:\n    servers: [{ url: 'https://other.example' }]\n";
    expect(openapiKind.origins({ document: stored })).toEqual(["https://eu.api.example", "https://other.example"]);
  });
});
