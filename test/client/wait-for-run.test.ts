import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaiGraphQLError, type TaiClient } from "../../src/client/index.ts";
import { FAST_RETRY, startServer, TRANSPORTS, until, type ServerUnderTest } from "./support.ts";

// Background dispatch and waitForRun against a real listening server, whose queue workers execute the runs.
describe("tai42/client: background runs and waitForRun", () => {
  let server: ServerUnderTest;
  let key: string;

  beforeAll(async () => {
    server = await startServer();
    key = await server.rt.keys.create("wait-user", "USER");
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)("over %s", (transport) => {
    let client: TaiClient;
    beforeAll(() => {
      client = server.client({ apiKey: key, transport, retry: FAST_RETRY });
    });

    it("should answer a background dispatch QUEUED, then wait until it SUCCEEDED", async () => {
      const queued = await client.dispatch("echo", { text: `bg-${transport}` }, { background: true });
      expect(queued.status).toBe("QUEUED");
      const done = await client.waitForRun(queued.id, { timeoutMs: 20_000 });
      expect(done).toMatchObject({ id: queued.id, status: "SUCCEEDED" });
      expect(JSON.stringify(done)).toContain(`bg-${transport}`);
    });

    it("should resolve at once for a run that already ended", async () => {
      const run = await client.dispatch("echo", { text: "sync" });
      expect(run.status).toBe("SUCCEEDED");
      const done = await client.waitForRun(run.id, { timeoutMs: 5_000 });
      expect(done).toMatchObject({ id: run.id, status: "SUCCEEDED" });
    });
  });

  describe("over ws", () => {
    let client: TaiClient;
    beforeAll(() => {
      client = server.client({ apiKey: key, retry: FAST_RETRY });
    });

    it("should reject with the signal's reason when the wait is aborted, the run going on", async () => {
      const queued = await client.dispatch("sleep", { seconds: 30 }, { background: true });
      const ac = new AbortController();
      const waiting = client.waitForRun(queued.id, { signal: ac.signal });
      const reason = new Error("caller gave up");
      ac.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      expect((await client.run(queued.id))?.status).toMatch(/^(QUEUED|RUNNING)$/);
      await server.rt.dispatcher.cancel(queued.id);
      expect(await client.waitForRun(queued.id, { timeoutMs: 10_000 })).toMatchObject({ status: "CANCELLED" });
    });

    it("should reject with a TimeoutError after timeoutMs", async () => {
      const queued = await client.dispatch("sleep", { seconds: 30 }, { background: true });
      await expect(client.waitForRun(queued.id, { timeoutMs: 200 })).rejects.toMatchObject({ name: "TimeoutError" });
      await server.rt.dispatcher.cancel(queued.id);
    });

    it("should keep waiting across a lost connection", async () => {
      const queued = await client.dispatch("sleep", { seconds: 1 }, { background: true });
      const waiting = client.waitForRun(queued.id, { timeoutMs: 20_000 });
      await until("the run is running", async () => (await client.run(queued.id))?.status === "RUNNING");
      expect(server.dropConnections()).toBeGreaterThan(0);
      expect(await waiting).toMatchObject({ id: queued.id, status: "SUCCEEDED", data: { sleptSeconds: 1 } });
    });

    it("should reject NOT_FOUND for a run the caller may not see", async () => {
      const err = await client.waitForRun("no-such-run", { timeoutMs: 5_000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TaiGraphQLError);
      expect((err as TaiGraphQLError).code).toBe("NOT_FOUND");
    });
  });
});
