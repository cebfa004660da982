import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { dashboardRoutes, type DashboardIdentity } from "../../src/server/dashboard.ts";

/** The dashboard's routes alone on a free loopback port, over the built dashboard, with `identity`. */
async function serve(identity: DashboardIdentity | null): Promise<{ origin: string; server: Server }> {
  const routes = dashboardRoutes(undefined, identity);
  const server = createServer((req, res) => {
    if (!routes(req, res)) res.writeHead(418).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const IDENTITY: DashboardIdentity = {
  resource: "http://127.0.0.1:4000",
  issuers: [
    { issuer: "https://login.example.com/realms/tai", dashboard: { clientId: "tai-dashboard", scope: "openid tai" } },
    { issuer: "https://machines.example.org" },
    { issuer: "https://second.example.net", dashboard: { clientId: "dash" } },
  ],
};

describe("the dashboard's sign-in configuration (GET /dashboard/identity.json)", () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it("should list the issuers with a dashboard block (client id and scope, nothing secret) and the resource", async () => {
    const s = await serve(IDENTITY);
    server = s.server;
    const res = await fetch(`${s.origin}/dashboard/identity.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.json()).toEqual({
      resource: "http://127.0.0.1:4000",
      issuers: [
        { issuer: "https://login.example.com/realms/tai", clientId: "tai-dashboard", scope: "openid tai" },
        { issuer: "https://second.example.net", clientId: "dash", scope: "openid profile offline_access" },
      ],
    });
  });

  it("should let the page connect to those issuers' origins and to nothing more", async () => {
    const s = await serve(IDENTITY);
    server = s.server;
    const csp = (await fetch(`${s.origin}/dashboard`)).headers.get("content-security-policy")!;
    const connect = csp.split("; ").find((d) => d.startsWith("connect-src"));
    expect(connect).toBe("connect-src 'self' https://login.example.com https://second.example.net");
    expect(csp.replace(connect!, "")).not.toMatch(/https?:|\*/);
  });

  it("should list no issuer, and keep the page's policy self-only, when none is configured or none has a dashboard block", async () => {
    for (const identity of [null, { resource: "http://127.0.0.1:4000", issuers: [{ issuer: "https://m.example" }] }]) {
      const s = await serve(identity);
      server = s.server;
      expect(await (await fetch(`${s.origin}/dashboard/identity.json`)).json()).toEqual({ issuers: [] });
      const csp = (await fetch(`${s.origin}/dashboard`)).headers.get("content-security-policy")!;
      expect(csp).toContain("connect-src 'self';");
      expect(csp).not.toMatch(/https?:/);
      s.server.close();
      server = undefined;
    }
  });
});
