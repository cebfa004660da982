import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, wsClient } from "./support.ts";

describe("revocation without a shared bus", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;

  beforeEach(async () => {
    rt = await testRuntime();
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
  });
  afterEach(async () => {
    await server.stop();
    await rt.dispose();
  });

  it("should close an open socket whose key another process revoked in the database", async () => {
    const key = await rt.keys.create("watcher", "USER");
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${key}` } });
    const closed = new Promise<number>((resolve) => client.on("closed", (e) => resolve((e as { code: number }).code)));
    // The server holds the socket for its key before it acknowledges the connection.
    const connected = new Promise<void>((resolve) => client.on("connected", () => resolve()));
    const sub = collect(client, "subscription { toolsChanged { name } }");
    await connected;
    // What `tai keys revoke` does from another process when no Redis links the two.
    await rt.db.apiKey.update({ where: { name: "watcher" }, data: { revokedAt: new Date() } });
    expect(await closed).toBe(4403);
    await sub.waitForEnd();
    await client.dispose();
  }, 20_000);
});
