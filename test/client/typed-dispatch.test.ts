import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTaiClient, type TaiClient } from "../../src/client/index.ts";
import type { TaiTools } from "./types/demo-tools.ts";
import { FAST_RETRY, startServer, TRANSPORTS, type ServerUnderTest } from "./support.ts";

/** `createTaiClient<TaiTools>()` against a real server: the typed calls run as the untyped ones do. */
describe("typed dispatch (createTaiClient<TaiTools>, the demo surface's map)", () => {
  let server: ServerUnderTest;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  for (const transport of TRANSPORTS)
    it(`should run calculate with a typed input and read its typed data, over ${transport}`, async () => {
      const tai: TaiClient<TaiTools> = createTaiClient<TaiTools>({ url: server.url, transport, retry: FAST_RETRY });
      try {
        const run = await tai.dispatch("calculate", { op: "power", a: 2, b: 10 });
        expect(run.status).toBe("SUCCEEDED");
        // `data` is `{ result: number } | null`: the typed read is the value the server returned.
        const result: number | undefined = run.data?.result;
        expect(result).toBe(1024);
        const seen: string[] = [];
        for await (const event of tai.runEvents({ runId: run.id, afterSeq: 0 })) if (seen.push(event.type) === 2) break;
        expect(seen).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
      } finally {
        await tai.close();
      }
    });

  it("should leave an optional input property passed as undefined out of the input the tool receives", async () => {
    const tai = createTaiClient<TaiTools>({ url: server.url });
    try {
      const run = await tai.dispatch("clock", { timeZone: undefined });
      expect(run.status).toBe("SUCCEEDED");
      expect(run.input).toEqual({});
    } finally {
      await tai.close();
    }
  });

  it("should still report a run the server refused (a failed run is data): typed data is null there", async () => {
    const tai = createTaiClient<TaiTools>({ url: server.url });
    try {
      // A divide by zero passes the schema; the tool fails it.
      const run = await tai.dispatch("calculate", { op: "divide", a: 1, b: 0 });
      expect(run.status).toBe("FAILED");
      const data: { result: number } | null = run.data;
      expect(data).toBeNull();
    } finally {
      await tai.close();
    }
  });
});
