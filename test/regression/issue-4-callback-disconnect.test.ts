import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("callback URL: a client that disconnects mid-body (issue 4)", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  beforeEach(async () => {
    rt = await testRuntime({ app: new App(), config: { demo: false } });
    server = buildApp(rt);
    await server.start(0, "127.0.0.1");
  });
  afterEach(async () => {
    await server.stop();
    await rt.dispose();
  });

  it("should not raise an unhandled rejection (which would stop the server) when a callback POST is cut off mid-body, and keep serving", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const port = (server.server.address() as { port: number }).port;
      const sock = net.connect(port, "127.0.0.1");
      await new Promise((r) => sock.once("connect", r));
      // No key and a made-up token: anyone on the network can send this.
      sock.write(
        `POST /callbacks/${"a".repeat(43)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"verdict":`,
      );
      await new Promise((r) => setTimeout(r, 200));
      sock.destroy();
      await new Promise((r) => setTimeout(r, 500));
      expect(unhandled.map(String)).toEqual([]);
      const res = await fetch(`http://127.0.0.1:${port}/callbacks/${"b".repeat(43)}`, { method: "POST", body: "{}" });
      expect(res.status).toBe(404);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
