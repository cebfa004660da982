import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { hostGuard } from "../../src/server/hosts.ts";
import { handshake, startServer, type Started } from "./edge-support.ts";

/** POSTs a GraphQL body to the server's port with a chosen Host header, as a browser under DNS rebinding would. */
function postAs(s: Started, host: string, query: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query });
    const req = request(
      {
        host: "127.0.0.1",
        port: s.port,
        path: "/graphql",
        method: "POST",
        headers: {
          host,
          origin: `http://${host}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("a loopback server and DNS rebinding", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it("should refuse an HTTP request addressed to another site's name with 403 FORBIDDEN, running nothing", async () => {
    s = await startServer();
    const host = `attacker.example:${s.port}`;
    const res = await postAs(
      s,
      host,
      `mutation { dispatch(input: { tool: "kv_put", input: { key: "pwned", value: 1 } }) { status } }`,
    );
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe("FORBIDDEN");
    expect(await s.rt.db.run.count({ where: { tool: "kv_put" } })).toBe(0);
  });

  it("should refuse a WebSocket upgrade whose Origin and Host both name another site, before any connection_ack", async () => {
    s = await startServer();
    const host = `attacker.example:${s.port}`;
    expect(await handshake(s.url, {}, { origin: `http://${host}`, headers: { host } })).toEqual({ status: 403 });
  });

  it("should answer requests addressed to loopback names", async () => {
    s = await startServer();
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `LOCALHOST.:${s.port}`]) {
      const res = await postAs(s, host, "{ __typename }");
      expect(res.status, host).toBe(200);
    }
    const h = await handshake(s.url, {}, { headers: { host: `localhost:${s.port}` } });
    expect(h).toMatchObject({ ack: true });
    if ("socket" in h) h.socket.close();
  });

  it("should answer for the hosts of TAI_PUBLIC_URL and TAI_CORS_ORIGINS, and check nothing on a non-loopback bind", () => {
    const guard = hostGuard({
      host: "127.0.0.1",
      publicUrl: "https://tai.example.com",
      corsOrigins: ["https://app.example.org"],
    })!;
    expect(guard("tai.example.com")).toBe(true);
    expect(guard("app.example.org:443")).toBe(true);
    expect(guard("tai.example.com.evil.net")).toBe(false);
    expect(guard(undefined)).toBe(false);
    expect(hostGuard({ host: "0.0.0.0", publicUrl: undefined, corsOrigins: [] })).toBeNull();
  });
});
