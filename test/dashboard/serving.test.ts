import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardRoutes } from "../../src/server/dashboard.ts";
import { startServer, type TestServer } from "./server.ts";

/** A raw HTTP request: no URL normalisation (so `..` reaches the server as sent). */
function raw(
  origin: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: init.method ?? "GET", headers: init.headers }, (res) => {
      let body = "";
      res.setEncoding("latin1");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serving the dashboard", () => {
  let server: TestServer;
  let page: string;
  let script: string;

  beforeAll(async () => {
    server = await startServer();
    page = (await raw(server.origin, "/dashboard")).body;
    script = /src="(\/dashboard\/assets\/app-[A-Z0-9]+\.js)"/.exec(page)![1];
  });
  afterAll(() => server.stop());

  it("should redirect / to /dashboard", async () => {
    const res = await raw(server.origin, "/");
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/dashboard");
  });

  it("should serve the page with a self-only Content-Security-Policy (no inline script, no eval), no framing and no caching", async () => {
    const res = await raw(server.origin, "/dashboard");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|wasm-unsafe-eval|https?:|\*/);
    // No inline script: the one script is a file of the server.
    expect(page.match(/<script\b[^>]*>/g)).toEqual([`<script type="module" src="${script}">`]);
    expect((await raw(server.origin, "/dashboard/")).status).toBe(200);
  });

  it("should serve the hashed assets with their content types, cached for good, gzipped when asked", async () => {
    const js = await raw(server.origin, script, { headers: { "accept-encoding": "gzip, br" } });
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.headers["content-encoding"]).toBe("gzip");
    expect(js.headers.vary).toBe("Accept-Encoding");
    const plain = await raw(server.origin, script);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(Number(js.headers["content-length"]));

    const css = /href="(\/dashboard\/assets\/app-[A-Z0-9]+\.css)"/.exec(page)![1];
    expect((await raw(server.origin, css)).headers["content-type"]).toBe("text/css; charset=utf-8");
    const icon = await raw(server.origin, "/dashboard/assets/favicon.svg");
    expect(icon.headers["content-type"]).toBe("image/svg+xml");
    expect(icon.headers["cache-control"]).toBe("no-cache");
  });

  it("should answer HEAD without a body and refuse other methods", async () => {
    const head = await raw(server.origin, script, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    const post = await raw(server.origin, "/dashboard", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });

  it("should serve nothing outside dist/dashboard/assets: traversal, encoded traversal, dot files and unknown names are 404", async () => {
    for (const path of [
      "/dashboard/assets/../../package.json",
      "/dashboard/assets/..%2f..%2fpackage.json",
      "/dashboard/assets/%2e%2e/index.html",
      "/dashboard/assets/.build-stamp.json",
      "/dashboard/../dist/.build-stamp.json",
      "/dashboard/assets/",
      "/dashboard/assets/nope.js",
      "/dashboard/index.html/x",
      "/dashboard/runs",
    ]) {
      const res = await raw(server.origin, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toBe("not found");
    }
  });

  it("should answer only for loopback hosts on a loopback bind, like the API (DNS rebinding)", async () => {
    const res = await raw(server.origin, "/dashboard", { headers: { host: "rebound.example" } });
    expect(res.status).toBe(403);
  });

  it("should say how to build it when dist/dashboard/ is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "tai42-no-dashboard-"));
    const routes = dashboardRoutes(empty);
    const bare: Server = createServer((req, res) => {
      if (!routes(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
    try {
      const origin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
      const res = await raw(origin, "/dashboard");
      expect(res.status).toBe(503);
      expect(res.body).toContain("npm run build");
      expect((await raw(origin, "/graphql")).status).toBe(418);
    } finally {
      bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
