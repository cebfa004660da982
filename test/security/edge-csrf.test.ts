import { afterEach, describe, expect, it } from "vitest";
import { startServer, type Started } from "./edge-support.ts";

const MUTATION = 'mutation { dispatch(input: { tool: "echo", input: { text: "forged" } }) { id status } }';

describe("cross-site request forgery", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  const runs = () => s!.rt.db.run.count();
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(s!.url, { method: "POST", body, headers });

  it("should refuse a form-encoded mutation with 400 BAD_REQUEST and run nothing", async () => {
    s = await startServer();
    const res = await post(new URLSearchParams({ query: MUTATION }).toString(), {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]).toMatchObject({
      extensions: { code: "BAD_REQUEST" },
      message: expect.stringContaining("application/json"),
    });
    expect(await runs()).toBe(0);
  });

  it("should refuse multipart and text/plain bodies the same way", async () => {
    s = await startServer();
    const form = new FormData();
    form.set("operations", JSON.stringify({ query: MUTATION }));
    form.set("map", "{}");
    expect((await post(form)).status).toBe(400);
    expect((await post(JSON.stringify({ query: MUTATION }), { "content-type": "text/plain" })).status).toBe(400);
    expect(await runs()).toBe(0);
  });

  it("should never run a mutation over GET, even with the CSRF header", async () => {
    s = await startServer();
    const res = await fetch(`${s.url}?query=${encodeURIComponent(MUTATION)}`, { headers: { "x-graphql-csrf": "1" } });
    expect(res.status).toBe(405);
    expect(await runs()).toBe(0);
  });

  it("should run a JSON mutation as curl sends it, and a simple body that carries the x-graphql-csrf header", async () => {
    s = await startServer();
    const json = await post(JSON.stringify({ query: MUTATION }), { "content-type": "application/json" });
    expect(((await json.json()) as { data: { dispatch: { status: string } } }).data.dispatch.status).toBe("SUCCEEDED");
    const flagged = await post(JSON.stringify({ query: MUTATION }), {
      "content-type": "text/plain",
      "x-graphql-csrf": "1",
    });
    expect(flagged.status).not.toBe(400);
  });

  it("should still serve GraphiQL's page to a browser", async () => {
    s = await startServer();
    const res = await fetch(s.url, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("tai42 GraphiQL");
  });
});
