import { afterEach, describe, expect, it } from "vitest";
import { RUN_EVENTS, sseReader, until, within } from "../graphql/support.ts";
import { startServer, type Started } from "./edge-support.ts";

describe("a revoked key's SSE subscriptions", () => {
  let s: Started | undefined;
  const aborts: AbortController[] = [];
  afterEach(async () => {
    for (const a of aborts.splice(0)) a.abort();
    await s?.stop();
    s = undefined;
  });

  async function subscribe(authorization?: string) {
    const abort = new AbortController();
    aborts.push(abort);
    const res = await within(
      "the SSE response",
      fetch(s!.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ query: RUN_EVENTS }),
        signal: abort.signal,
      }),
    );
    return sseReader(res);
  }

  it("should end when the key is revoked where no bus reaches the server (as `tai keys revoke` does), found by polling", async () => {
    s = await startServer();
    const key = await s.rt.keys.create("dashboard", "USER");
    const stream = await subscribe(`Bearer ${key}`);
    const anonymous = await subscribe();
    await until("both subscriptions to listen", () => s!.rt.bus.listenerCount("runEvent") === 2);
    // Another process writes the revocation to the database; nothing is published here.
    await s.rt.db.apiKey.update({ where: { name: "dashboard" }, data: { revokedAt: new Date() } });
    await until("the revoked stream to end", () => stream.ended(), 15_000);
    expect(stream.nexts().flatMap((e) => e.errors ?? [])).toEqual([
      expect.objectContaining({ message: "the API key was revoked", extensions: { code: "UNAUTHENTICATED" } }),
    ]);
    await until("the server to release the revoked subscription", () => s!.rt.bus.listenerCount("runEvent") === 1);
    expect(anonymous.ended()).toBe(false);
  }, 30_000);

  it("should end at once on the bus message", async () => {
    s = await startServer();
    const key = await s.rt.keys.create("dashboard", "USER");
    const stream = await subscribe(`Bearer ${key}`);
    await until("the subscription to listen", () => s!.rt.bus.listenerCount("runEvent") === 1);
    await s.rt.keys.revoke("dashboard");
    await until("the revoked stream to end", () => stream.ended(), 2_000);
    expect(stream.nexts().flatMap((e) => e.errors ?? [])).toEqual([
      expect.objectContaining({ extensions: { code: "UNAUTHENTICATED" } }),
    ]);
  });
});
