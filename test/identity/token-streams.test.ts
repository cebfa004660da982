import { afterEach, describe, expect, it } from "vitest";
import { collect, RUN_EVENTS, sseReader, until, wsClient } from "../graphql/support.ts";
import { identityWorld, RESOURCE, type IdentityWorld } from "./support.ts";

/**
 * A token caller's open streams end when the token does (docs/security-model.md §1.2): revoked at the issuer (found
 * by introspection, every `pollSeconds`: 0.5 s here) or expired, on graphql-ws and SSE alike; another caller's stay.
 */
describe("a token caller's streams", () => {
  let w: IdentityWorld | undefined;
  const stops: (() => unknown)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await w?.close();
    w = undefined;
  });

  function sse(token: string) {
    const abort = new AbortController();
    stops.push(() => abort.abort());
    return fetch(w!.graphql, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: RUN_EVENTS }),
      signal: abort.signal,
    }).then(sseReader);
  }

  function ws(token: string) {
    const client = wsClient(w!.graphql, { connectionParams: { authorization: `Bearer ${token}` } });
    stops.push(() => client.dispose());
    return collect(client, RUN_EVENTS);
  }

  it("should end the subject's graphql-ws and SSE streams within the poll interval once its token is revoked at the issuer", async () => {
    w = await identityWorld({ format: "opaque" });
    const bob = (await w.issuer.login("bob")).access_token;
    const uma = (await w.issuer.login("uma")).access_token;
    const socket = ws(bob);
    const events = await sse(bob);
    const other = ws(uma);
    await until("three subscriptions to listen", () => w!.server.rt.bus.listenerCount("runEvent") === 3);

    const revokedAt = Date.now();
    await w.issuer.revoke(bob);
    await socket.waitForEnd(5_000);
    await until("the SSE stream to end", () => events.ended(), 5_000);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    expect(socket.errors).toEqual([
      expect.objectContaining({ code: 4403, reason: "Forbidden: the access token was revoked" }),
    ]);
    expect(events.nexts().flatMap((e) => e.errors ?? [])).toEqual([
      expect.objectContaining({ message: "the access token was revoked", extensions: { code: "UNAUTHENTICATED" } }),
    ]);
    expect(other.completed || other.errors.length > 0).toBe(false);
  }, 20_000);

  it("should refuse a revoked opaque token on the next request, and take a live one by introspection", async () => {
    w = await identityWorld({ format: "opaque" });
    const bob = (await w.issuer.login("bob")).access_token;
    const viewer = async () =>
      (await fetch(w!.graphql, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bob}` },
        body: JSON.stringify({ query: "{ viewer { subject } }" }),
      }).then((r) => r.json())) as {
        data?: { viewer: { subject: string } };
        errors?: { extensions: { code: string } }[];
      };
    expect((await viewer()).data?.viewer.subject).toBe("bob");
    await w.issuer.revoke(bob);
    await until(
      "the revoked token to be refused (the introspection cache is 1 s)",
      async () => (await viewer()).errors?.[0]?.extensions.code === "UNAUTHENTICATED",
    );
  }, 20_000);

  it("should end a stream when its JWT expires, with a message saying so", async () => {
    w = await identityWorld();
    const now = Math.floor(Date.now() / 1000);
    // The issuer's own key, exp 2 s ahead: a stream ends at exp itself (the skew is for requests only).
    const token = await w.issuer.sign({
      iss: w.issuer.issuer,
      sub: "bob",
      aud: RESOURCE,
      iat: now,
      exp: now + 2,
      groups: ["tai-users"],
    });
    const socket = ws(token);
    await until("the subscription to listen", () => w!.server.rt.bus.listenerCount("runEvent") === 1);
    await socket.waitForEnd(10_000);
    expect(socket.errors).toEqual([
      expect.objectContaining({ code: 4403, reason: "Forbidden: the access token expired" }),
    ]);
  }, 20_000);
});
