import { afterEach, describe, expect, it } from "vitest";
import { handshake, startServer, type Started } from "./edge-support.ts";

describe("graphql-ws connectionParams authorization", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  /** Sends one query on an acknowledged raw socket and returns its first result. */
  async function viewer(payload: Record<string, unknown>) {
    const h = await handshake(s!.url, payload);
    if (!("socket" in h)) throw new Error(`not acknowledged: ${JSON.stringify(h)}`);
    const result = new Promise<unknown>((resolve) =>
      h.socket.on("message", (m) => JSON.parse(String(m)).type === "next" && resolve(JSON.parse(String(m)).payload)),
    );
    h.socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "{ viewer { role keyName } }" } }));
    const r = await result;
    h.socket.close();
    return r;
  }

  it("should read the key under any capitalisation of its name", async () => {
    s = await startServer({ TAI_ANONYMOUS_ROLE: "NONE" });
    const key = await s.rt.keys.create("browser", "ADMIN");
    expect(await viewer({ authorization: `Bearer ${key}` })).toEqual({
      data: { viewer: { role: "ADMIN", keyName: "browser" } },
    });
    expect(await viewer({ Authorization: `Bearer ${key}` })).toEqual({
      data: { viewer: { role: "ADMIN", keyName: "browser" } },
    });
    expect(await viewer({ AUTHORIZATION: `Bearer ${key}` })).toEqual({
      data: { viewer: { role: "ADMIN", keyName: "browser" } },
    });
  });

  it("should refuse a non-string authorization with 4403 and a reason, never falling back to anonymous", async () => {
    s = await startServer();
    for (const value of [42, { key: "x" }, null, ["Bearer x"]]) {
      expect(await handshake(s.url, { authorization: value })).toEqual({
        closed: 4403,
        reason: expect.stringMatching(/^Forbidden: connectionParams\.authorization must be a string/),
      });
    }
  });

  it("should refuse two spellings at once", async () => {
    s = await startServer();
    expect(await handshake(s.url, { authorization: "Bearer a", Authorization: "Bearer b" })).toEqual({
      closed: 4403,
      reason: expect.stringContaining("authorization values"),
    });
  });

  it("should close a bad key with 4403 and a reason that says what was wrong", async () => {
    s = await startServer();
    expect(await handshake(s.url, { Authorization: "Bearer tai_not_a_real_key" })).toEqual({
      closed: 4403,
      reason: "Forbidden: the API key is unknown or revoked",
    });
    expect(await handshake(s.url, { authorization: "Basic abc" })).toEqual({
      closed: 4403,
      reason: expect.stringMatching(/^Forbidden: the authorization value must be/),
    });
  });
});
