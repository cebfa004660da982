import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { gql } from "./support.ts";

const DISPATCH = /* GraphQL */ `
  mutation Dispatch($tool: String!, $input: JSONObject!) {
    dispatch(input: { tool: $tool, input: $input }) {
      id
      tool
      status
      data
      errorKind
      door
    }
  }
`;
const RUN = /* GraphQL */ `
  query Run($id: ID!) {
    run(id: $id) {
      id
      tool
      status
      data
      door
      attempts {
        number
      }
    }
  }
`;
const RUNS = /* GraphQL */ `
  query Runs($first: Int, $after: String) {
    runs(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

interface RunsPage {
  runs: {
    edges: { cursor: string; node: { id: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
}

describe("GraphQL over HTTP (in-process)", () => {
  let rt: TestRuntime | undefined;
  let app: TaiServer | undefined;

  async function setup(config: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): Promise<TaiServer> {
    rt = await testRuntime({ config, env });
    app = buildApp(rt);
    return app;
  }

  afterEach(async () => {
    await app?.stop().catch(() => {});
    await rt?.dispose();
    app = rt = undefined;
  });

  describe("operations", () => {
    it("should dispatch a demo tool to SUCCEEDED and read the run back by id", async () => {
      const yoga = await setup();
      const res = await gql<{ dispatch: { id: string; status: string; data: unknown; door: string } }>(yoga, DISPATCH, {
        variables: { tool: "calculate", input: { op: "multiply", a: 6, b: 7 } },
      });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      const run = res.body.data!.dispatch;
      expect(run).toMatchObject({
        tool: "calculate",
        status: "SUCCEEDED",
        data: { result: 42 },
        errorKind: null,
        door: "graphql",
      });

      const back = await gql<{ run: unknown }>(yoga, RUN, { variables: { id: run.id } });
      expect(back.body.data!.run).toEqual({
        id: run.id,
        tool: "calculate",
        status: "SUCCEEDED",
        data: { result: 42 },
        door: "graphql",
        attempts: [{ number: 1 }],
      });
    });

    it("should return null for a run id that does not exist", async () => {
      const yoga = await setup();
      const res = await gql<{ run: unknown }>(yoga, RUN, { variables: { id: "no-such-run" } });
      expect(res.body).toEqual({ data: { run: null } });
    });

    it("should paginate runs newest first with first/after and a consistent pageInfo", async () => {
      const yoga = await setup();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await gql<{ dispatch: { id: string } }>(yoga, DISPATCH, {
          variables: { tool: "echo", input: { text: `n${i}` } },
        });
        ids.push(r.body.data!.dispatch.id);
      }
      const seen: string[] = [];
      let after: string | null = null;
      const pages: RunsPage["runs"][] = [];
      for (let guard = 0; guard < 5; guard++) {
        const page: RunsPage["runs"] = (await gql<RunsPage>(yoga, RUNS, { variables: { first: 2, after } })).body.data!
          .runs;
        pages.push(page);
        seen.push(...page.edges.map((e) => e.node.id));
        expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
        expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(pages.map((p) => p.edges.length)).toEqual([2, 2, 1]);
      expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual([true, true, false]);
      expect(pages.map((p) => p.pageInfo.hasPreviousPage)).toEqual([false, true, true]);
      expect(seen).toEqual([...ids].reverse());
    });

    it("should reject a cursor it did not issue with BAD_USER_INPUT naming the argument", async () => {
      const yoga = await setup();
      const res = await gql(yoga, RUNS, { variables: { first: 2, after: "not-a-cursor" } });
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0].extensions?.code).toBe("BAD_USER_INPUT");
      expect(res.body.errors![0].message).toContain('"after"');
      expect(res.body.errors![0].extensions?.issues).toEqual([{ path: "/after", message: "is not a valid cursor" }]);
    });

    it("should reject a page size out of range with BAD_USER_INPUT", async () => {
      const yoga = await setup();
      const res = await gql(yoga, RUNS, { variables: { first: 0 } });
      expect(res.body.errors![0].extensions?.code).toBe("BAD_USER_INPUT");
      expect(res.body.errors![0].message).toContain('"first"');
    });
  });

  describe("bad input", () => {
    it("should answer malformed GraphQL with a syntax error naming where it broke", async () => {
      const yoga = await setup();
      const res = await gql(yoga, "{ viewer { role ");
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0].message).toMatch(/^Syntax Error: Expected Name, found <EOF>\.$/);
      expect(res.body.errors![0]).toMatchObject({ locations: [{ line: 1, column: 17 }] });
    });

    it("should refuse dispatch options out of bounds with BAD_USER_INPUT naming the argument under /input, and store nothing", async () => {
      const yoga = await setup();
      const BOUNDED = `mutation($t: Float, $k: String) { dispatch(input: { tool: "clock", input: {}, timeoutSeconds: $t, idempotencyKey: $k }) { id } }`;
      const timeout = await gql(yoga, BOUNDED, { variables: { t: 0 } });
      expect(timeout.body.errors).toMatchObject([
        {
          message: "timeoutSeconds must be > 0",
          extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/input/timeoutSeconds", message: "must be > 0" }] },
        },
      ]);
      const key = await gql(yoga, BOUNDED, { variables: { k: "k".repeat(201) } });
      expect(key.body.errors).toMatchObject([
        {
          message: "idempotencyKey must be 1 to 200 characters",
          extensions: {
            code: "BAD_USER_INPUT",
            issues: [{ path: "/input/idempotencyKey", message: "must be 1 to 200 characters" }],
          },
        },
      ]);
      expect(await rt!.runs.count({})).toBe(0);
    });

    it("should refuse a query deeper than the depth limit with a message naming the limit", async () => {
      const yoga = await setup();
      // The schema has no cycle deep enough, so the depth comes from fields that do not
      // exist: the limit is checked on the document's shape, before anything runs.
      let deep = "role";
      for (let i = 0; i < 14; i++) deep = `f${i} { ${deep} }`;
      const res = await gql(yoga, `{ viewer { ${deep} } }`);
      expect(res.body.data).toBeUndefined();
      const messages = res.body.errors!.map((e) => e.message);
      expect(messages).toContain("the operation exceeds a server limit: Query depth limit of 12 exceeded, found 16.");
    });

    it("should refuse a body over TAI_MAX_BODY_BYTES with 413 and store nothing", async () => {
      const yoga = await setup({}, { TAI_MAX_BODY_BYTES: "4096" });
      expect(rt!.config.maxBodyBytes).toBe(4096);
      const before = await rt!.runs.list({}, 10);
      const res = await yoga.yoga.fetch("http://127.0.0.1/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: DISPATCH, variables: { tool: "echo", input: { text: "x".repeat(10_000) } } }),
      });
      expect(res.status).toBe(413);
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors).toEqual([
        { message: "Request body too large", extensions: { code: "REQUEST_ENTITY_TOO_LARGE" } },
      ]);
      expect(await rt!.runs.list({}, 10)).toEqual(before);
      expect(await rt!.db.runEvent.count()).toBe(0);
    });

    it("should refuse an oversize chunked body over a real socket with 413, and store nothing", async () => {
      const yoga = await setup({ maxBodyBytes: 4096 });
      const url = new URL(await yoga.start(0, "127.0.0.1"));
      const body = JSON.stringify({
        query: DISPATCH,
        variables: { tool: "echo", input: { text: "x".repeat(20_000) } },
      });
      // No content-length: the limit must hold on the bytes that actually arrive.
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { "content-type": "application/json" },
          },
          (r) => {
            let text = "";
            r.on("data", (c) => (text += c));
            r.on("end", () => resolve({ status: r.statusCode!, text }));
          },
        );
        req.setTimeout(5000, () => req.destroy(new Error("timed out waiting for the response")));
        req.on("error", reject);
        for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000));
        req.end();
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).errors[0].extensions.code).toBe("REQUEST_ENTITY_TOO_LARGE");
      expect(await rt!.runs.list({}, 10)).toEqual([]);
    });

    it("should accept a body just under the limit", async () => {
      const yoga = await setup({ maxBodyBytes: 4096 });
      const res = await gql<{ dispatch: { status: string } }>(yoga, DISPATCH, {
        variables: { tool: "echo", input: { text: "x".repeat(3000) } },
      });
      expect(res.status).toBe(200);
      expect(res.body.data!.dispatch.status).toBe("SUCCEEDED");
    });
  });

  describe("authentication", () => {
    it("should identify a caller by its Bearer key", async () => {
      const yoga = await setup();
      const key = await rt!.keys.create("reporting", "READER");
      const res = await gql(yoga, "{ viewer { role keyName authenticated } }", {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.body).toEqual({ data: { viewer: { role: "READER", keyName: "reporting", authenticated: true } } });
    });

    it("should reject a bad key with UNAUTHENTICATED instead of falling back to the anonymous role", async () => {
      const yoga = await setup();
      for (const authorization of ["Bearer tai_not_a_real_key", "Token abc"]) {
        const res = await gql(yoga, DISPATCH, {
          variables: { tool: "echo", input: { text: "x" } },
          headers: { authorization },
        });
        expect(res.body.data ?? null).toBeNull();
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors![0].extensions?.code).toBe("UNAUTHENTICATED");
      }
      expect(await rt!.runs.list({}, 10)).toEqual([]);
    });

    it("should reject an anonymous dispatch with UNAUTHENTICATED when the anonymous role is NONE, and store nothing", async () => {
      rt = await testRuntime({ env: { TAI_ANONYMOUS_ROLE: "NONE" } });
      app = buildApp(rt);
      const res = await gql(app, DISPATCH, { variables: { tool: "echo", input: { text: "x" } } });
      expect(res.body.errors![0]).toMatchObject({
        message: expect.stringContaining("authentication required"),
        extensions: { code: "UNAUTHENTICATED" },
      });
      expect(await rt.runs.list({}, 10)).toEqual([]);
      expect((await gql(app, "{ viewer { role authenticated } }")).body).toEqual({
        data: { viewer: { role: null, authenticated: false } },
      });
    });
  });

  describe("error masking", () => {
    it("should mask an unexpected resolver error: no message, no stack, code INTERNAL_SERVER_ERROR", async () => {
      const yoga = await setup();
      rt!.runs.get = async () => {
        throw new Error("connection to db://admin:hunter2@10.0.0.7 refused");
      };
      const res = await gql(yoga, RUN, { variables: { id: "x" } });
      expect(res.body.errors).toHaveLength(1);
      const [error] = res.body.errors!;
      expect(error.message).toBe("Unexpected error.");
      expect(error.extensions).toEqual({ code: "INTERNAL_SERVER_ERROR" });
      expect(error.path).toEqual(["run"]);
      const raw = JSON.stringify(res.body);
      expect(raw).not.toContain("hunter2");
      expect(raw).not.toMatch(/stack|originalError|at .*\.ts:\d+/);
      // The edge logs it with context instead, for the operator.
      expect(rt!.logLines.some((l) => l.includes("unexpected error in a GraphQL operation"))).toBe(true);
    });
  });

  describe("CORS", () => {
    const preflight = (yoga: TaiServer, origin: string) =>
      yoga.yoga.fetch("http://127.0.0.1/graphql", {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,authorization",
        },
      });

    it("should give a cross-origin request no Access-Control-Allow-Origin by default", async () => {
      const yoga = await setup();
      const res = await gql(yoga, "{ viewer { role } }", { headers: { origin: "http://evil.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      const pre = await preflight(yoga, "http://evil.example");
      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("should allow an origin that config.corsOrigins lists, and only that one", async () => {
      const yoga = await setup({ corsOrigins: ["http://dashboard.example"] });
      const ok = await gql(yoga, "{ viewer { role } }", { headers: { origin: "http://dashboard.example" } });
      expect(ok.headers.get("access-control-allow-origin")).toBe("http://dashboard.example");
      const pre = await preflight(yoga, "http://dashboard.example");
      expect(pre.headers.get("access-control-allow-origin")).toBe("http://dashboard.example");
      expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");

      const other = await gql(yoga, "{ viewer { role } }", { headers: { origin: "http://evil.example" } });
      expect(other.headers.get("access-control-allow-origin")).not.toBe("http://evil.example");
    });
  });

  describe("GraphiQL", () => {
    const page = (yoga: TaiServer) => yoga.yoga.fetch("http://127.0.0.1/graphql", { headers: { accept: "text/html" } });

    it("should serve GraphiQL to a browser asking for text/html", async () => {
      const yoga = await setup();
      const res = await page(yoga);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      expect(html).toContain("<title>tai42 GraphiQL</title>");
      expect(html).toContain("renderYogaGraphiQL");
    });

    it("should serve GraphiQL's scripts and styles itself, so that it works without internet access", async () => {
      const yoga = await setup();
      const html = await (await page(yoga)).text();
      // Yoga's own page loads them from unpkg.com, which an offline machine cannot reach.
      expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
      expect(html).not.toMatch(/<link[^>]+href=["']?https?:/);
      expect(html).not.toContain("https://unpkg.com/");
    });

    it("should not serve GraphiQL when config.graphiql is false", async () => {
      const yoga = await setup({ graphiql: false });
      const res = await page(yoga);
      expect(res.headers.get("content-type") ?? "").not.toContain("text/html");
      expect(await res.text()).not.toContain("GraphiQL");
    });
  });
});
