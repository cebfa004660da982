import { afterEach, describe, expect, it } from "vitest";
import { originAllowed } from "../../src/server/origins.ts";
import { handshake, logs, startServer, type Started } from "./edge-support.ts";

describe("WebSocket upgrades and their Origin", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function expectAcked(origin: string | undefined) {
    const h = await handshake(s!.url, {}, origin === undefined ? {} : { origin });
    expect(h, `origin ${origin}`).toMatchObject({ ack: true });
    if ("socket" in h) h.socket.close();
  }

  it("should refuse an upgrade from another site with HTTP 403, before any connection_ack", async () => {
    s = await startServer();
    expect(await handshake(s.url, {}, { origin: "http://evil.example" })).toEqual({ status: 403 });
    expect(await handshake(s.url, {}, { origin: "null" })).toEqual({ status: 403 });
  });

  it("should log a refused origin as one warn line without a stack trace", async () => {
    s = await startServer();
    await handshake(s.url, {}, { origin: "http://evil.example" });
    const lines = logs(s.rt).filter((l) => l.msg.includes("origin"));
    expect(lines).toEqual([expect.objectContaining({ level: "warn", origin: "http://evil.example" })]);
    expect(JSON.stringify(lines)).not.toMatch(/\n\s+at /);
  });

  it("should accept a client without Origin, the server's own origin and loopback origins on any port", async () => {
    s = await startServer();
    await expectAcked(undefined);
    await expectAcked(`http://127.0.0.1:${s.port}`);
    await expectAcked("http://localhost:5173");
    await expectAcked("http://127.0.0.2:8080");
    await expectAcked("http://[::1]:3000");
  });

  it("should accept an origin listed in TAI_CORS_ORIGINS and refuse look-alikes of it", async () => {
    s = await startServer({ TAI_CORS_ORIGINS: "https://app.example.com" });
    await expectAcked("https://app.example.com");
    expect(await handshake(s.url, {}, { origin: "https://app.example.com.evil.example" })).toEqual({ status: 403 });
    expect(await handshake(s.url, {}, { origin: "http://app.example.com" })).toEqual({ status: 403 });
  });

  it("should judge the server's own origin by the Host the client reached it at", () => {
    expect(originAllowed("https://tai.example.org", "tai.example.org", [])).toBe(true);
    expect(originAllowed("https://tai.example.org", "other.example.org", [])).toBe(false);
    expect(originAllowed("file://", "tai.example.org", [])).toBe(false);
  });
});
