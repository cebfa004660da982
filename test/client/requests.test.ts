import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, TaiGraphQLError, TaiTransportError, type TaiClient } from "../../src/client/index.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { startServer, type ServerUnderTest } from "./support.ts";

describe("tai42/client over HTTP (a real listening server)", () => {
  let server: ServerUnderTest;
  let client: TaiClient;
  let userKey: string;

  beforeAll(async () => {
    server = await startServer({ app: agentTestApp() });
    userKey = await server.rt.keys.create("client-user", "USER");
    client = server.client({ apiKey: userKey });
  });
  afterAll(() => server.stop());

  describe("request", () => {
    it("should run a typed query as the key's caller and return its data", async () => {
      const Viewer = graphql(`
        query Viewer {
          viewer {
            authenticated
            role
            keyName
          }
        }
      `);
      const { viewer } = await client.request(Viewer);
      expect(viewer).toEqual({ authenticated: true, role: "USER", keyName: "client-user" });
    });

    it("should send the variables of a typed document", async () => {
      const Tool = graphql(`
        query Tool($name: String!) {
          tool(name: $name) {
            name
            origin
            tier
          }
        }
      `);
      expect(await client.request(Tool, { name: "calculate" })).toEqual({
        tool: { name: "calculate", origin: "TOOL", tier: "READ" },
      });
    });

    it("should run as an anonymous caller without a key", async () => {
      const { viewer } = await server.client().request(
        graphql(`
          {
            viewer {
              authenticated
              role
            }
          }
        `),
      );
      expect(viewer).toEqual({ authenticated: false, role: "USER" });
    });

    it("should throw a TaiGraphQLError carrying the errors with their extensions.code", async () => {
      const Create = graphql(`
        mutation Create($input: PresetInput!) {
          createPreset(input: $input) {
            name
          }
        }
      `);
      const error = await client
        .request(Create, { input: { name: "p", description: "d", baseTool: "no_such_tool", fixedKwargs: {} } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaiGraphQLError);
      expect((error as TaiGraphQLError).code).toBe("BAD_USER_INPUT");
      expect((error as TaiGraphQLError).errors[0]).toMatchObject({
        message: expect.stringContaining("no_such_tool"),
        extensions: { code: "BAD_USER_INPUT" },
      });
    });

    it("should throw UNAUTHENTICATED for an unknown key", async () => {
      const error = await server
        .client({ apiKey: "not-a-key" })
        .request(
          graphql(`
            {
              viewer {
                role
              }
            }
          `),
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaiGraphQLError);
      expect((error as TaiGraphQLError).code).toBe("UNAUTHENTICATED");
    });

    it("should throw a TaiTransportError when nothing answers at the URL", async () => {
      const closedPort = new URL(server.url);
      closedPort.port = "9";
      const error = await server
        .client({ url: closedPort.href })
        .request(
          graphql(`
            {
              viewer {
                role
              }
            }
          `),
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaiTransportError);
      expect((error as Error).message).toContain("could not reach");
    });

    it("should reject with the abort reason when its signal aborts", async () => {
      const abort = new AbortController();
      abort.abort(new Error("stop"));
      await expect(
        client.request(
          graphql(`
            {
              viewer {
                role
              }
            }
          `),
          {},
          { signal: abort.signal },
        ),
      ).rejects.toThrow("stop");
    });
  });

  describe("dispatch, run and runs", () => {
    it("should dispatch a tool and return the typed run", async () => {
      const run = await client.dispatch("calculate", { op: "power", a: 2, b: 10 });
      expect(run).toMatchObject({
        tool: "calculate",
        status: "SUCCEEDED",
        data: { result: 1024 },
        isError: false,
        door: "graphql",
        attempts: [{ number: 1 }],
      });
    });

    it("should return a failed run as data, not throw", async () => {
      const run = await client.dispatch("calculate", { op: "power" });
      expect(run).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
    });

    it("should return the first run for a re-issued idempotency key", async () => {
      const first = await client.dispatch("echo", { text: "once" }, { idempotencyKey: "client-once" });
      const again = await client.dispatch("echo", { text: "once" }, { idempotencyKey: "client-once" });
      expect(again.id).toBe(first.id);
    });

    it("should read a run by id, and null for one the caller may not see", async () => {
      const run = await client.dispatch("echo", { text: "mine" });
      expect(await client.run(run.id)).toEqual(run);
      const other = await server.client().dispatch("echo", { text: "anonymous" });
      expect(await client.run(other.id)).toBeNull();
    });

    it("should page through runs filtered by tool and status", async () => {
      for (const text of ["a", "b", "c"]) await client.dispatch("echo", { text: `page-${text}` });
      const first = await client.runs({ tool: "echo", status: "SUCCEEDED", first: 2 });
      expect(first.edges).toHaveLength(2);
      expect(first.pageInfo.hasNextPage).toBe(true);
      const second = await client.runs({
        tool: "echo",
        status: "SUCCEEDED",
        first: 2,
        after: first.pageInfo.endCursor!,
      });
      const ids = [...first.edges, ...second.edges].map((e) => e.node.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(
        [...first.edges, ...second.edges].every((e) => e.node.tool === "echo" && e.node.status === "SUCCEEDED"),
      ).toBe(true);
    });

    it("should filter runs by door and start time, counting every match in totalCount", async () => {
      const since = new Date().toISOString();
      for (const text of ["x", "y", "z"]) await client.dispatch("echo", { text: `window-${text}` });
      const page = await client.runs({ tool: "echo", door: "graphql", startedAfter: since, first: 2 });
      expect(page.totalCount).toBe(3);
      expect(page.edges.map((e) => e.node.door)).toEqual(["graphql", "graphql"]);
      expect((await client.runs({ tool: "echo", door: "cli", startedAfter: since })).totalCount).toBe(0);
    });

    it("should page through the agent runs the caller started", async () => {
      for await (const e of client.agentStream({ userMessage: "hello" })) if (e.final) break;
      const page = await client.agentRuns({ first: 1 });
      expect(page.totalCount).toBeGreaterThanOrEqual(1);
      expect(page.edges[0].node).toMatchObject({ agent: expect.any(String), status: "SUCCEEDED" });
    });
  });

  describe("answerInteraction", () => {
    it("should answer a parked run's interaction and return the resumed run", async () => {
      const parked = await client.dispatch("approve_spend", { amount: 5 });
      expect(parked).toMatchObject({
        status: "PARKED",
        interactions: [{ question: "Approve spending 5?", status: "PENDING" }],
      });
      const done = await client.answerInteraction(parked.interactions[0].id, { ok: true });
      expect(done).toMatchObject({ id: parked.id, status: "SUCCEEDED", data: { ok: true } });
    });

    it("should throw BAD_USER_INPUT for an answer that does not match the answer format", async () => {
      const parked = await client.dispatch("approve_spend", { amount: 6 });
      const error = await client.answerInteraction(parked.interactions[0].id, { ok: "yes" }).catch((e: unknown) => e);
      expect((error as TaiGraphQLError).code).toBe("BAD_USER_INPUT");
    });
  });
});
