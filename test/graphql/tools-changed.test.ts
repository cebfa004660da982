import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Client } from "graphql-ws";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient } from "./support.ts";

describe("toolsChanged over graphql-ws (real sockets)", () => {
  let started: { rt: TestRuntime; app: TaiServer } | undefined;
  const clients: Client[] = [];
  let url = "";

  async function start() {
    const rt = await testRuntime();
    const app = buildApp(rt);
    url = await app.start(0, "127.0.0.1");
    started = { rt, app };
    return started;
  }

  function client(): Client {
    const c = wsClient(url);
    clients.push(c);
    return c;
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    if (started) {
      await started.app.stop();
      await started.rt.dispose();
      started = undefined;
    }
  });

  const listeners = (topic: "toolsChanged") => started!.rt.bus.listenerCount(topic);

  describe("toolsChanged", () => {
    it("should fire when a tool is registered on the app after start", async () => {
      const { rt } = await start();
      const sub = collect<{ toolsChanged: { name: string }[] }>(client(), "subscription { toolsChanged { name } }");
      await until("the subscription to listen", () => listeners("toolsChanged") === 1);
      rt.app.tool(
        { name: "late_tool", description: "Registered after the server started.", input: z.object({}) },
        () => "late",
      );
      const [first] = await sub.waitForData(1);
      expect(first.toolsChanged.map((t) => t.name)).toContain("late_tool");
      expect(first.toolsChanged.map((t) => t.name)).toContain("echo");
    });

    it("should send the surface as it is first with current: true, then each change, so nothing between a read and the subscription is lost", async () => {
      const { rt } = await start();
      const sub = collect<{ toolsChanged: { name: string }[] }>(
        client(),
        "subscription { toolsChanged(current: true) { name } }",
      );
      const [now] = await sub.waitForData(1);
      expect(now.toolsChanged.map((t) => t.name)).toContain("echo");
      expect(now.toolsChanged.map((t) => t.name)).not.toContain("later_tool");
      expect(listeners("toolsChanged")).toBe(1);
      rt.app.tool(
        { name: "later_tool", description: "Registered after the first list.", input: z.object({}) },
        () => "later",
      );
      const [, changed] = await sub.waitForData(2);
      expect(changed.toolsChanged.map((t) => t.name)).toContain("later_tool");
    });
  });
});
