import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectorConnection, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { ECHO_DOCUMENT } from "./echo-document.ts";
import { connectorEnv, json, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

describe("redirects of an OpenAPI call", () => {
  let upstream: Upstream;
  let elsewhere: Upstream;
  let connection: ConnectorConnection;
  let tools: Map<string, UpstreamTool>;

  beforeAll(async () => {
    elsewhere = await startUpstream((req, res) => json(res, 200, { got: req.headers.authorization ?? null }));
    upstream = await startUpstream((req, res) => {
      if (req.url === "/api/items/here") {
        res.writeHead(307, { location: "/api/items/there" });
        return res.end();
      }
      if (req.url === "/api/items/away") {
        res.writeHead(302, { location: `${elsewhere.url}/steal` });
        return res.end();
      }
      json(res, 200, { url: req.url, auth: req.headers.authorization ?? null });
    });
    connection = await openapiKind.connect(
      connectorEnv({
        document: ECHO_DOCUMENT,
        serverUrl: `${upstream.url}/api`,
        headers: { Authorization: "Bearer redirect-secret" },
      }),
    );
    tools = new Map((await connection.list()).tools.map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await upstream?.close();
    await elsewhere?.close();
  });

  it("follows a redirect within the server's origin, headers and all", async () => {
    const result = normalizeResult(
      "getItem",
      await connection.call(tools.get("getItem")!, { itemId: "here" }, upstreamCall()),
    );
    expect(result.data).toEqual({ url: "/api/items/there", auth: "Bearer redirect-secret" });
  });

  it("does not follow a redirect to another origin: the call fails UPSTREAM and the other server is never reached", async () => {
    const error = (await connection
      .call(tools.get("getItem")!, { itemId: "away" }, upstreamCall())
      .catch((e: unknown) => e)) as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe("UPSTREAM");
    expect(error.message).toContain(`to another origin, ${elsewhere.url}: not followed`);
    expect(elsewhere.received).toEqual([]);
  });
});
