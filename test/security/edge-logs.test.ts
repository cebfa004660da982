import { writeFileSync, mkdirSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { outageLog } from "../../src/events/outage-log.ts";
import { createLogger } from "../../src/log.ts";
import { redisTestUrl, requireRedis, testRunDir } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RUN_EVENTS, until, wsClient, collect } from "../graphql/support.ts";
import { handshake, logs, startServer, type Started } from "./edge-support.ts";

const stackTrace = /\n\s+at /;

describe("log lines", () => {
  let s: Started | undefined;
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await s?.stop();
    s = undefined;
    vi.restoreAllMocks();
  });

  it("should log an oversized WebSocket frame as one warn line without a stack, and close it with 1009", async () => {
    s = await startServer({ TAI_MAX_BODY_BYTES: "1024" });
    const consoleError = vi.spyOn(console, "error");
    const h = await handshake(s.url);
    if (!("socket" in h)) throw new Error("not acknowledged");
    const closed = new Promise<number>((r) => h.socket.on("close", (code) => r(code)));
    h.socket.send("x".repeat(4096));
    expect(await closed).toBe(1009);
    await until("the fault to be logged", () =>
      logs(s!.rt).some((l) => l.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"),
    );
    const lines = logs(s.rt).filter((l) => l.level !== "info");
    expect(lines).toEqual([expect.objectContaining({ level: "warn", code: "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" })]);
    expect(s.rt.logLines.join("\n")).not.toMatch(stackTrace);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it("should not warn about listener leaks with many subscribers on one key and one socket", async () => {
    s = await startServer();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    cleanups.push(() => void process.off("warning", onWarning));
    const key = await s.rt.keys.create("many", "USER");
    const client = wsClient(s.url, { connectionParams: { authorization: `Bearer ${key}` } });
    cleanups.push(() => client.dispose());
    const subs = Array.from({ length: 25 }, () => collect(client, RUN_EVENTS));
    await until("25 subscriptions to listen", () => s!.rt.bus.listenerCount("runEvent") === 25);
    const aborts = Array.from({ length: 15 }, () => new AbortController());
    cleanups.push(() => aborts.forEach((a) => a.abort()));
    await Promise.all(
      aborts.map((a) =>
        fetch(s!.url, {
          method: "POST",
          signal: a.signal,
          headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: RUN_EVENTS }),
        }),
      ),
    );
    await until("40 subscriptions to listen", () => s!.rt.bus.listenerCount("runEvent") === 40);
    // Warnings are emitted on the next tick of the registration that crossed the limit.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
    subs.forEach((x) => x.stop());
  });

  it("should not log spurious 'does not bind' errors when a start loads the active manifest's extension module", async () => {
    const first = await testRuntime();
    cleanups.push(() => first.dispose());
    // A module never imported in this process: the start below is the first to load it.
    const dir = resolve(testRunDir(), "edge-logs");
    mkdirSync(dir, { recursive: true });
    const suffix = `${process.pid}_${Date.now()}`;
    const module = resolve(dir, `ext-${suffix}.ts`);
    writeFileSync(
      module,
      `import { z } from "zod";
import { app } from ${JSON.stringify(resolve("src/app.ts"))};
app.tool({ name: "edge_tool_${suffix}", description: "d", input: z.object({ text: z.string() }) }, ({ text }) => text);
app.extension({ name: "edge_ext_${suffix}", kind: "WRAPPER", description: "d", create: (tool) => tool });
`,
    );
    await first.db.manifest.create({
      data: {
        name: "m",
        active: true,
        document: { extensionsModules: [module], extensions: { [`edge_tool_${suffix}`]: [`edge_ext_${suffix}`] } },
      },
    });
    // The module lies in the extensions folder, so the manifest allow-list admits it.
    const second = await testRuntime({ databaseUrl: first.config.databaseUrl, config: { extensionsDir: dir } });
    cleanups.push(() => second.close());
    expect(second.surface.resolve(`edge_tool_${suffix}_edge_ext_${suffix}`)).toBeDefined();
    expect(second.logLines.filter((l) => l.includes("does not bind"))).toEqual([]);
  });

  it("should log a Redis outage once while it lasts and once when it ends", async () => {
    if (!(await requireRedis())) return;
    // A proxy in front of Redis that first drops every connection, then forwards.
    const target = new URL(redisTestUrl());
    let forward = false;
    let attempts = 0;
    const open = new Set<Socket>();
    const proxy: Server = createServer((client) => {
      attempts++;
      open.add(client);
      client.on("close", () => open.delete(client));
      client.on("error", () => {});
      if (!forward) return void client.destroy();
      const upstream = connect(Number(target.port || 6379), target.hostname);
      upstream.on("error", () => client.destroy());
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise((r) => proxy.close(r)));
    cleanups.push(() => open.forEach((c) => c.destroy()));
    const port = (proxy.address() as { port: number }).port;
    const rt: TestRuntime = await testRuntime({
      config: { redisUrl: `redis://127.0.0.1:${port}`, redisPrefix: `edge-${process.pid}:` },
    });
    cleanups.push(() => rt.dispose());
    const redisLines = () => logs(rt).filter((l) => l.msg.startsWith("redis"));
    await until("ioredis to retry many times", () => attempts >= 12);
    expect(redisLines()).toEqual([
      expect.objectContaining({ level: "warn", msg: "redis is unreachable; events degrade until it returns" }),
    ]);
    forward = true;
    await until("the recovery line", () => redisLines().length === 2, 15_000);
    expect(redisLines()[1]).toMatchObject({ level: "info", msg: "redis is reachable again" });
    expect(rt.logLines.join("\n")).not.toMatch(stackTrace);
  }, 30_000);

  it("should repeat an outage line at most once per 10 s while it lasts", () => {
    const lines: string[] = [];
    let now = 0;
    const outage = outageLog(
      createLogger({}, (l) => lines.push(l)),
      "redis",
      10_000,
      () => now,
    );
    for (; now < 35_000; now += 20) outage.error(new Error("connect ECONNREFUSED"));
    outage.recovered();
    outage.recovered();
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
      "redis is unreachable; events degrade until it returns",
      "redis is still unreachable",
      "redis is still unreachable",
      "redis is still unreachable",
      "redis is reachable again",
    ]);
  });
});
