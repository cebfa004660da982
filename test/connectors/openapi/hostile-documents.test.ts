import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";
import { connectorEnv, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

const GIB = 1024 * 1024 * 1024;
const head = "openapi: 3.0.3\ninfo: { title: hostile, version: '1' }\nservers: [{ url: /api }]\n";
const refTo = (ref: string) =>
  `${head}paths:\n  /a:\n    get:\n      operationId: a\n      responses: { '200': { $ref: '${ref}' } }\n`;

/** What the connect of `settings` rejects with (it must reject). */
async function refusal(settings: Record<string, unknown>, fetchFn?: typeof fetch): Promise<ToolError> {
  const error = await openapiKind.connect(connectorEnv(settings, fetchFn)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("an OpenAPI connector reading a hostile document", () => {
  let upstream: Upstream;
  let hugeSent = 0;
  const files: Record<string, string> = {};
  const fetchFn = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (path === "/specs/huge.yaml") {
        res.writeHead(200, { "content-type": "application/yaml" });
        const chunk = Buffer.from(`# ${"x".repeat(1024 * 1024 - 3)}\n`);
        const pump = () => {
          while (hugeSent < GIB && !res.destroyed) {
            hugeSent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        return pump();
      }
      const file = files[path];
      res.writeHead(file === undefined ? 404 : 200, { "content-type": "application/yaml" });
      res.end(file ?? "missing");
    });
    files["/secret.yaml"] = "R: { description: the folder's parent }\n";
    files["/p"] = "received";
    files["/specs/dots.yaml"] = refTo("./%2e%2e/secret.yaml#/R");
    files["/specs/file.yaml"] = refTo("file:///etc/passwd#/R");
    files["/specs/metadata.yaml"] = refTo("http://169.254.169.254/latest/meta-data#/R");
  });
  afterAll(async () => upstream?.close());

  it("reads a 1 GiB document URL no further than its limit, refusing it", { timeout: 60_000 }, async () => {
    const error = await refusal({ documentUrl: `${upstream.url}/specs/huge.yaml` }, fetchFn);
    expect(error.message).toMatch(/larger than \d+ bytes/);
    expect(hugeSent).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a $ref that leaves the document's folder through an encoded dot segment, never fetching it", async () => {
    const error = await refusal({ documentUrl: `${upstream.url}/specs/dots.yaml` }, fetchFn);
    expect(error.message).toContain("outside the document's folder");
    expect(upstream.received.map((r) => r.url)).not.toContain("/secret.yaml");
  });

  it("never reads a file: $ref, from a document URL or a stored document", async () => {
    const byUrl = await refusal({ documentUrl: `${upstream.url}/specs/file.yaml` }, fetchFn);
    const stored = await refusal({ document: refTo("file:///etc/passwd#/R"), serverUrl: upstream.url }, fetchFn);
    for (const error of [byUrl, stored]) expect(error.message).not.toContain("root:");
    expect(byUrl.message).toContain("outside the document's folder");
    expect(stored.message).toContain("may only refer to itself");
  });

  it("never fetches a $ref to the metadata address", async () => {
    const error = await refusal({ documentUrl: `${upstream.url}/specs/metadata.yaml` }, fetchFn);
    expect(error.message).toContain("outside the document's folder");
  });

  it("refuses a billion-laughs YAML document quickly instead of expanding it", async () => {
    const levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i < 10; i++)
      levels.push(
        `${"abcdefghij"[i]}: &${"abcdefghij"[i]} [${Array(9)
          .fill(`*${"abcdefghij"[i - 1]}`)
          .join(", ")}]`,
      );
    const started = Date.now();
    const error = await refusal({ document: `${head}${levels.join("\n")}\npaths: {}\n`, serverUrl: upstream.url });
    expect(error.message).toMatch(/alias/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("imports a document full of __proto__ keys without polluting any prototype", async () => {
    // Written as text: an object literal's __proto__ would set a prototype, not a key.
    const doc = `{"openapi":"3.0.3","info":{"title":"proto","version":"1"},"paths":{"/p":{"post":{"operationId":"p",
      "parameters":[{"name":"__proto__","in":"query","schema":{"type":"string"}}],
      "requestBody":{"content":{"application/json":{"schema":{"type":"object","__proto__":{"polluted":true},
        "properties":{"__proto__":{"type":"string","polluted":true}}}}}},
      "responses":{"200":{"description":"ok"}}}}}}`;
    const connection = await openapiKind.connect(connectorEnv({ document: doc, serverUrl: upstream.url }));
    const listing = await connection.list();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("type");
    const input = listing.tools[0]!.inputSchema as {
      properties: Record<string, { properties: Record<string, unknown> }>;
    };
    expect(Object.hasOwn(input.properties, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(input.properties)).toBe(Object.prototype);
    expect(Object.hasOwn(input.properties.body!.properties, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(input.properties.body)).toBe(Object.prototype);
    const sent = await connection.call(
      listing.tools[0]!,
      JSON.parse('{"__proto__":"q","body":{}}') as Record<string, unknown>,
      upstreamCall(),
    );
    expect(sent).toBeDefined();
    expect(upstream.received.at(-1)!.url).toBe("/p?__proto__=q");
  });

  it("refuses a deeply nested document with a reason, not a stack overflow", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const doc = `{"openapi":"3.0.3","info":{"title":"deep","version":"1"},"x-deep":${deep},"paths":{}}`;
    const error = await openapiKind.connect(connectorEnv({ document: doc, serverUrl: upstream.url })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain("nests deeper than");
  });
});
