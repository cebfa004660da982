import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectorConnection, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { validate } from "../../../src/tools/json-schema.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { COLLECTION } from "./collection.ts";
import { connectorEnv, json, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

const PET = {
  id: 7,
  name: "Rex",
  photoUrls: ["http://x/rex.png"],
  status: "available",
  category: { id: 1, name: "dogs" },
  tags: [{ id: 2, name: "good" }],
};

describe("the collection's petstore (3.0/yaml/petstore.yaml) served by a local server through serverUrl", () => {
  let upstream: Upstream;
  let connection: ConnectorConnection;
  let tools: Map<string, UpstreamTool>;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const url = new URL(req.url, "http://upstream");
      if (req.method === "GET" && url.pathname === "/v2/pet/7") return json(res, 200, PET);
      if (req.method === "GET" && url.pathname === "/v2/pet/findByStatus") return json(res, 200, [PET]);
      if (req.method === "POST" && url.pathname === "/v2/pet") return json(res, 200, JSON.parse(req.body) as unknown);
      if (req.method === "DELETE" && url.pathname === "/v2/pet/7") return json(res, 200, {});
      json(res, 404, { message: "no such pet" });
    });
    const document = readFileSync(join(COLLECTION, "3.0/yaml/petstore.yaml"), "utf8");
    connection = await openapiKind.connect(
      connectorEnv({ document, serverUrl: `${upstream.url}/v2`, headers: { api_key: "key-from-env" } }),
    );
    tools = new Map((await connection.list()).tools.map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await connection?.close();
    await upstream?.close();
  });

  const call = async (name: string, input: Record<string, unknown>) =>
    normalizeResult(name, await connection.call(tools.get(name)!, input, upstreamCall({ idempotencyKey: "pet-key" })));
  const last = () => upstream.received.at(-1)!;

  it("reads a pet by id, the answer matching the imported output schema", async () => {
    const tool = tools.get("getPetById")!;
    expect(tool.proposedTier).toBe("read");
    expect(tool.inputSchema.required).toEqual(["petId"]);
    const result = await call("getPetById", { petId: 7 });
    expect(last().url).toBe("/v2/pet/7");
    expect(result.data).toEqual(PET);
    expect(validate(tool.outputSchema!, result.data)).toEqual([]);
  });

  it("sends an array query parameter exploded (form style) and returns the array body as data", async () => {
    const result = await call("findPetsByStatus", { status: ["available", "sold"] });
    expect(last().url).toBe("/v2/pet/findByStatus?status=available&status=sold");
    expect(result.data).toEqual([PET]);
    // An array answer gets no output schema (MCP serves object output schemas only).
    expect(tools.get("findPetsByStatus")!.outputSchema).toBeUndefined();
  });

  it("adds a pet with the JSON body of its $ref'd request body and the run's Idempotency-Key", async () => {
    const tool = tools.get("addPet")!;
    expect(tool.proposedTier).toBe("write");
    expect(tool.inputSchema.required).toEqual(["body"]);
    const result = await call("addPet", { body: PET });
    expect([last().method, last().headers["content-type"], last().headers["idempotency-key"]]).toEqual([
      "POST",
      "application/json",
      "pet-key",
    ]);
    expect(result.data).toEqual(PET);
  });

  it("deletes a pet: the settings' api_key header wins over the operation's own api_key parameter", async () => {
    await call("deletePet", { petId: 7, api_key: "from-input" });
    expect([last().method, last().url, last().headers.api_key]).toEqual(["DELETE", "/v2/pet/7", "key-from-env"]);
  });

  it("refuses the multipart upload with its reason, and imports every other operation", async () => {
    const listing = await connection.list();
    expect(listing.refused).toEqual([
      {
        name: "uploadFile",
        reason: "its request body is multipart/form-data: multipart bodies (file uploads) are not sent by tai42",
      },
    ]);
    expect(listing.tools.length).toBe(19);
  });
});
