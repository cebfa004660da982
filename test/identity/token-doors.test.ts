import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, RUN_EVENTS, sseReader, until, within, wsClient } from "../graphql/support.ts";
import { connect, textOf } from "../mcp/support.ts";
import { asBearer, identityWorld, type IdentityWorld } from "./support.ts";

const DISPATCH = /* GraphQL */ `
  mutation ($tool: String!) {
    dispatch(input: { tool: $tool, input: {} }) {
      id
      status
      errorKind
    }
  }
`;
const RUN = /* GraphQL */ `
  query ($id: ID!) {
    run(id: $id) {
      id
    }
  }
`;

type Dispatched = { dispatch: { id: string; status: string; errorKind: string | null } };

/** The same run rules for a token caller as for a key, on every door: HTTP, SSE, graphql-ws and /mcp. */
describe("a token caller on every door", () => {
  let w: IdentityWorld;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    w = await identityWorld();
    for (const a of ["alice", "bob", "rita", "uma"]) tokens[a] = await w.token(a);
  });
  afterAll(() => w.close());

  it("should hold a READER's token to read tools over HTTP: the write tool's run FAILED PERMISSION_DENIED", async () => {
    const ok = await asBearer<Dispatched>(w.graphql, tokens.rita, DISPATCH, { tool: "look" });
    expect(ok.data?.dispatch.status).toBe("SUCCEEDED");
    const no = await asBearer<Dispatched>(w.graphql, tokens.rita, DISPATCH, { tool: "touch" });
    expect(no.data?.dispatch).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
  });

  it("should show a subject its own runs only: another USER sees none of them, an ADMIN sees them", async () => {
    const mine = await asBearer<Dispatched>(w.graphql, tokens.bob, DISPATCH, { tool: "touch" });
    const id = mine.data!.dispatch.id;
    const seen = async (who: string) =>
      (await asBearer<{ run: { id: string } | null }>(w.graphql, tokens[who], RUN, { id })).data?.run ?? null;
    expect(await seen("bob")).toEqual({ id });
    const row = await w.server.rt.db.run.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ callerKey: `oidc:${w.issuer.issuer}#bob`, callerKeyId: `oidc:${w.issuer.issuer}#bob` });
    expect(await seen("uma")).toBeNull();
    expect(await seen("alice")).toEqual(expect.objectContaining({ id }));
  });

  it("should take the token over graphql-ws connectionParams, refuse a bad one with 4403, and apply tiers", async () => {
    const client = wsClient(w.graphql, { connectionParams: { authorization: `Bearer ${tokens.rita}` } });
    const answer = await within(
      "a ws dispatch",
      client.subscribe
        ? new Promise<unknown>((resolve) => {
            const out: unknown[] = [];
            client.subscribe(
              { query: DISPATCH, variables: { tool: "touch" } },
              {
                next: (r) => out.push(r),
                error: (e) => resolve(e),
                complete: () => resolve(out),
              },
            );
          })
        : Promise.resolve(null),
    );
    expect(JSON.stringify(answer)).toContain("PERMISSION_DENIED");
    await client.dispose();

    const bad = wsClient(w.graphql, { connectionParams: { authorization: "Bearer a.b.c" } });
    const closed = collect(bad, RUN_EVENTS);
    await closed.waitForEnd();
    expect(closed.errors).toEqual([
      expect.objectContaining({ code: 4403, reason: expect.stringMatching(/^Forbidden: the access token/) }),
    ]);
    await bad.dispose();
  });

  it("should stream over SSE for a token caller, and refuse SSE with a bad token", async () => {
    const sse = (token: string) =>
      fetch(w.graphql, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: RUN_EVENTS }),
      });
    const stream = sseReader(await sse(tokens.bob));
    await until("the SSE subscription to listen", () => w.server.rt.bus.listenerCount("runEvent") >= 1);
    await asBearer(w.graphql, tokens.bob, DISPATCH, { tool: "look" });
    await until("an event of bob's run", () => stream.nexts().some((e) => e.data));
    await stream.cancel();
    const refused = await (await sse(`${tokens.bob}x`)).text();
    expect(refused).toContain("UNAUTHENTICATED");
  });

  it("should call tools over /mcp with the token as bearer, the tier rule holding there too", async () => {
    const { client } = await connect(w.server.url, { headers: { authorization: `Bearer ${tokens.rita}` } });
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("look");
    expect(listed).not.toContain("touch");
    expect(textOf((await client.callTool({ name: "look", arguments: {} })) as CallToolResult)).toContain("seen");
    await client.close();
    const res = await fetch(w.server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${tokens.rita}x`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
  });
});
