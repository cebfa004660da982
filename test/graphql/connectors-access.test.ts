import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gqlClient, type GqlResult } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { fakeApp, fakeInput } from "./connector-support.ts";

/** docs/connectors.md §2: only an ADMIN reads or writes connectors; a lower caller is refused and nothing changes. */
describe("connectors are ADMIN only over GraphQL", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    rt = await testRuntime({ app: fakeApp().app });
    gql = gqlClient(rt);
    for (const role of ["ADMIN", "USER", "READER"] as const)
      keys[role] = await rt.keys.create(`access-${role.toLowerCase()}`, role);
    const put = await gql(
      `mutation($i: ConnectorInput!) { putConnector(input: $i) { connector { version } } }`,
      { i: fakeInput("guarded") },
      keys.ADMIN,
    );
    expect(put.errors).toBeUndefined();
  }, 60_000);
  afterAll(async () => {
    await rt?.dispose();
  });

  const operations: Array<[string, string, Record<string, unknown>]> = [
    ["connectors", `{ connectors { name } }`, {}],
    ["connector", `{ connector(name: "guarded") { name settings } }`, {}],
    [
      "putConnector",
      `mutation($i: ConnectorInput!) { putConnector(input: $i, expectedVersion: 1) { connector { version } } }`,
      { i: fakeInput("guarded") },
    ],
    [
      "putConnector (create)",
      `mutation($i: ConnectorInput!) { putConnector(input: $i) { connector { version } } }`,
      { i: fakeInput("other") },
    ],
    ["refreshConnector", `mutation { refreshConnector(name: "guarded") { change { listingVersion } } }`, {}],
    ["deleteConnector", `mutation { deleteConnector(name: "guarded") }`, {}],
  ];

  const forbidden = (r: GqlResult) => r.errors?.map((e) => e.extensions?.code);

  for (const role of ["USER", "READER"] as const)
    for (const [what, query, variables] of operations)
      it(`refuses a ${role} ${what} with FORBIDDEN`, async () => {
        const r = await gql(query, variables, keys[role]);
        expect(forbidden(r)).toEqual(["FORBIDDEN"]);
        // A nullable root field answers null beside its error; a non-null one nulls the whole data.
        expect(Object.values(r.data ?? {}).filter((v) => v !== null)).toEqual([]);
      });

  it("left the stored connector as the ADMIN put it, and stored no other", async () => {
    const r = await gql(`{ connectors { name version listingVersion } }`, {}, keys.ADMIN);
    expect(r.data!.connectors).toEqual([{ name: "guarded", version: 1, listingVersion: 1 }]);
    expect(await rt.db.connectorChange.count()).toBe(1);
  });

  for (const role of ["USER", "READER"] as const)
    it(`refuses a ${role} the connectorChanged subscription with FORBIDDEN`, async () => {
      const res = await buildApp(rt).yoga.fetch("http://localhost/graphql", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: `Bearer ${keys[role]}`,
        },
        body: JSON.stringify({ query: `subscription { connectorChanged { connector listingVersion } }` }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      expect(text).toContain("FORBIDDEN");
      expect(text).not.toContain('listingVersion":');
    });
});
