import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeTool } from "../fixtures/connector-kinds.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { CHANGE, CONNECTOR, fakeApp, fakeInput, PUT } from "./connector-support.ts";

/** The connector operations of docs/connectors.md §12 as an ADMIN, over the fake kind (a real plugin). */
describe("connectors over GraphQL, as an ADMIN", () => {
  const { app, fake } = fakeApp();
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  const codes = (r: { errors?: { extensions?: { code?: string } }[] }) => r.errors?.map((e) => e.extensions?.code);
  const stored = async () => ({
    connectors: await rt.db.connector.count(),
    changes: await rt.db.connectorChange.count(),
  });

  beforeAll(async () => {
    process.env.GQL_FAKE_TOKEN = "gql-fake-token-6c1d0e";
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("connectors-admin", "ADMIN");
  }, 60_000);
  afterAll(async () => {
    await rt?.dispose();
  });

  it("puts a connector and serves its listed tools as CONNECTOR tools", async () => {
    const input = fakeInput("acme", {
      settings: { upstream: "acme", token: "!ENV GQL_FAKE_TOKEN" },
      tools: { write_thing: { tier: "fenced" } },
    });
    const r = await gql(PUT, { i: input }, admin);
    expect(r.errors).toBeUndefined();
    const { connector, change } = r.data!.putConnector;
    expect(connector).toMatchObject({
      name: "acme",
      kind: "fake",
      version: 1,
      listingVersion: 1,
      settings: { upstream: "acme", token: "!ENV GQL_FAKE_TOKEN" },
      refused: [],
    });
    expect(connector.tools.map((t: any) => [t.name, t.upstreamName, t.proposedTier, t.tier, t.tierAssigned])).toEqual([
      ["acme_echo", "echo", "READ", "READ", false],
      ["acme_write_thing", "write_thing", "WRITE", "FENCED", true],
    ]);
    expect(connector.health.state).toBe("CONNECTED");
    expect(change).toMatchObject({
      connector: "acme",
      listingVersion: 1,
      cause: "PUT",
      added: ["acme_echo", "acme_write_thing"],
      removed: [],
      changed: [],
      broken: [],
    });
    expect(r.text).not.toContain("gql-fake-token-6c1d0e");

    const tools = await gql(
      `{ tools(origin: CONNECTOR) { name origin tier connector annotations inputSchema } }`,
      {},
      admin,
    );
    expect(tools.data!.tools).toEqual([
      {
        name: "acme_echo",
        origin: "CONNECTOR",
        tier: "READ",
        connector: "acme",
        annotations: { readOnlyHint: true },
        inputSchema: fakeTool("echo").inputSchema,
      },
      {
        name: "acme_write_thing",
        origin: "CONNECTOR",
        tier: "FENCED",
        connector: "acme",
        annotations: { readOnlyHint: false },
        inputSchema: fakeTool("x").inputSchema,
      },
    ]);
    const echo = await gql(`{ tool(name: "echo") { connector annotations } }`, {}, admin);
    expect(echo.data!.tool).toEqual({ connector: null, annotations: null });
  });

  it("reads it back by name and in the list, with its changes newest first", async () => {
    const one = await gql(`{ connector(name: "acme") { ${CONNECTOR} changes { ${CHANGE} } } }`, {}, admin);
    expect(one.data!.connector).toMatchObject({
      name: "acme",
      version: 1,
      changes: [{ listingVersion: 1, cause: "PUT" }],
    });
    expect((await gql(`{ connector(name: "nobody") { name } }`, {}, admin)).data!.connector).toBeNull();
    const all = await gql(`{ connectors { name version } }`, {}, admin);
    expect(all.data!.connectors).toEqual([{ name: "acme", version: 1 }]);
  });

  it("refreshes: no change while the upstream is the same, a new listing version once it differs", async () => {
    const same = await gql(
      `mutation { refreshConnector(name: "acme") { connector { listingVersion } change { ${CHANGE} } } }`,
      {},
      admin,
    );
    expect(same.data!.refreshConnector).toEqual({ connector: { listingVersion: 1 }, change: null });
    fake.upstream("acme").tools = [
      fakeTool("echo", "read", { description: "a new description" }),
      fakeTool("lookup", "read"),
    ];
    const r = await gql(
      `mutation { refreshConnector(name: "acme") { connector { listingVersion tools { name } } change { ${CHANGE} } } }`,
      {},
      admin,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data!.refreshConnector.connector).toEqual({
      listingVersion: 2,
      tools: [{ name: "acme_echo" }, { name: "acme_lookup" }],
    });
    expect(r.data!.refreshConnector.change).toMatchObject({
      listingVersion: 2,
      cause: "REFRESH",
      added: ["acme_lookup"],
      removed: ["acme_write_thing"],
      changed: [{ name: "acme_echo", fields: ["description"] }],
    });
    const names = (await gql(`{ tools(origin: CONNECTOR) { name } }`, {}, admin)).data!.tools.map((t: any) => t.name);
    expect(names).toEqual(["acme_echo", "acme_lookup"]);
  });

  it("refuses a stale expectedVersion with CONFLICT naming both versions, and stores nothing", async () => {
    const before = await stored();
    const r = await gql(PUT, { i: fakeInput("acme", { description: "stale" }), v: 7 }, admin);
    expect(codes(r)).toEqual(["CONFLICT"]);
    expect(r.errors![0].message).toMatch(/7/);
    expect(r.errors![0].message).toMatch(/1/);
    expect(await stored()).toEqual(before);
    expect((await gql(`{ connector(name: "acme") { description version } }`, {}, admin)).data!.connector).toEqual({
      description: "the acme upstream",
      version: 1,
    });
    const taken = await gql(PUT, { i: fakeInput("acme") }, admin);
    expect(codes(taken)).toEqual(["CONFLICT"]);
  });

  it("refuses bad settings with BAD_USER_INPUT and issues at their paths, and stores nothing", async () => {
    const before = await stored();
    const r = await gql(
      PUT,
      { i: fakeInput("broken", { settings: { upstream: "broken", token: "a literal token", nope: 1 } }) },
      admin,
    );
    expect(codes(r)).toEqual(["BAD_USER_INPUT"]);
    const paths = (r.errors![0].extensions as { issues: { path: string }[] }).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["/settings/token"]));
    expect(r.text).not.toContain("a literal token");
    const kind = await gql(PUT, { i: { name: "nokind", kind: "no-such-kind", settings: {} } }, admin);
    expect(codes(kind)).toEqual(["BAD_USER_INPUT"]);
    expect(await stored()).toEqual(before);
    expect((await gql(`{ tools(origin: CONNECTOR) { name } }`, {}, admin)).data!.tools.map((t: any) => t.name)).toEqual(
      ["acme_echo", "acme_lookup"],
    );
  });

  it("replaces with the stored version, then deletes: its tools leave the surface", async () => {
    const r = await gql(PUT, { i: fakeInput("acme", { description: "replaced" }), v: 1 }, admin);
    expect(r.errors).toBeUndefined();
    expect(r.data!.putConnector.connector).toMatchObject({ description: "replaced", version: 2 });
    const stale = await gql(`mutation { deleteConnector(name: "acme", expectedVersion: 1) }`, {}, admin);
    expect(codes(stale)).toEqual(["CONFLICT"]);
    const del = await gql(`mutation { deleteConnector(name: "acme", expectedVersion: 2) }`, {}, admin);
    expect(del.data).toEqual({ deleteConnector: true });
    expect((await gql(`{ tools(origin: CONNECTOR) { name } connectors { name } }`, {}, admin)).data).toEqual({
      tools: [],
      connectors: [],
    });
  });
});
