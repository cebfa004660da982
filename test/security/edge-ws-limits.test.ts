import { afterEach, describe, expect, it, vi } from "vitest";
import type { Client } from "graphql-ws";
import { collect, gql, until, wsClient } from "../graphql/support.ts";
import { startServer, type Started } from "./edge-support.ts";

const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { role }`).join(" ")} }`;
const directives = (n: number) =>
  `{ viewer { ${Array.from({ length: n }, () => "role @include(if: true)").join(" ")} } }`;
const tokens = (n: number) => `{ ${Array.from({ length: n }, () => "__typename").join(" ")} }`;

/** Runs one operation over graphql-ws and returns its errors (or []). */
function errorsOf(client: Client, query: string): Promise<{ message: string; extensions?: { code?: string } }[]> {
  return new Promise((resolve) => {
    const errors: { message: string; extensions?: { code?: string } }[] = [];
    client.subscribe(
      { query },
      {
        next: (r) => errors.push(...((r.errors ?? []) as never[])),
        error: (e) => resolve(Array.isArray(e) ? e : [{ message: String((e as { reason?: string }).reason ?? e) }]),
        complete: () => resolve(errors),
      },
    );
  });
}

describe("GraphQL limits over every transport", () => {
  let s: Started | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    await s?.stop();
    s = undefined;
    vi.restoreAllMocks();
  });

  it("should fail only the offending operation over graphql-ws, with BAD_USER_INPUT, and keep the socket and its subscriptions open", async () => {
    s = await startServer();
    const consoleError = vi.spyOn(console, "error");
    let closed: unknown;
    const client = wsClient(s.url, { on: { closed: (e) => (closed = e) } });
    clients.push(client);
    const sub = collect(client, "subscription { toolsChanged { name } }");
    await until("the subscription to listen", () => s!.rt.bus.listenerCount("toolsChanged") === 1);
    for (const query of [aliases(16), directives(21), tokens(5001)]) {
      const errors = await errorsOf(client, query);
      expect(errors, query.slice(0, 40)).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: "BAD_USER_INPUT" }) }),
      ]);
      expect(errors[0].message).toMatch(/^the operation exceeds a server limit: /);
      expect(errors[0].message).not.toContain("Syntax Error");
    }
    expect(await errorsOf(client, "{ viewer { role } }")).toEqual([]);
    expect(closed).toBeUndefined();
    expect(sub.completed || sub.errors.length > 0).toBe(false);
    expect(s.rt.bus.listenerCount("toolsChanged")).toBe(1);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it("should answer the same limits over HTTP with BAD_USER_INPUT and a clear message", async () => {
    s = await startServer();
    for (const query of [aliases(16), directives(21), tokens(5001)]) {
      const r = await gql(s.app, query);
      expect(r.body.errors, query.slice(0, 40)).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^the operation exceeds a server limit: .*(limit|Limit)/),
          extensions: expect.objectContaining({ code: "BAD_USER_INPUT" }),
        }),
      ]);
    }
  });
});
