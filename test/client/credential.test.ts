import { afterEach, describe, expect, it } from "vitest";
import { graphql, type RunEvent } from "../../src/client/index.ts";
import { echo, startServer, until, type ServerUnderTest } from "./support.ts";

const Viewer = graphql(`
  query Viewer {
    viewer {
      keyName
    }
  }
`);

describe("tai42/client with a credential function (a token that is refreshed)", () => {
  let server: ServerUnderTest;
  afterEach(() => server.stop());

  it("should ask the function at each request, so that a changed credential is sent from the next request on", async () => {
    server = await startServer();
    const keys = {
      first: await server.rt.keys.create("first", "USER"),
      second: await server.rt.keys.create("second", "USER"),
    };
    let current: string | undefined = keys.first;
    const client = server.client({ apiKey: () => current });
    expect((await client.request(Viewer)).viewer.keyName).toBe("first");
    current = keys.second;
    expect((await client.request(Viewer)).viewer.keyName).toBe("second");
    current = undefined;
    expect((await client.request(Viewer)).viewer.keyName).toBeNull();
  });

  it("should reconnect its socket with the credential as it is now, its run events resuming exactly once across it", async () => {
    server = await startServer();
    const first = await server.rt.keys.create("first", "ADMIN");
    const second = await server.rt.keys.create("second", "ADMIN");
    let current = first;
    const client = server.client({ apiKey: () => current });
    const events = client.runEvents({ afterSeq: 0 });
    const seen: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of events) seen.push(e);
    })();
    await echo(server.rt, "before");
    await until("the first run's events", () => seen.some((e) => e.type === "RUN_FINISHED"));
    const connections = server.connections;

    current = second;
    client.reconnect();
    await until("a new socket", () => server.connections > connections);
    // The old key's streams end on its revocation: the stream lives on because it moved to the new key's socket.
    await server.rt.keys.revoke("first");
    await echo(server.rt, "after");
    await until("the second run's events", () => seen.filter((e) => e.type === "RUN_FINISHED").length === 2);
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    await events.return();
    await reading;
  });
});
