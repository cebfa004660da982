import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { ToolError } from "../../../src/errors.ts";
import { localServer, type LocalServer } from "./servers.ts";

let target: LocalServer;
let origin: LocalServer;

beforeAll(async () => {
  target = await localServer((_req, res) => res.end("landed"));
  // Answers /to?status=S&location=L with that redirect; /loop redirects to itself; anything else 200.
  origin = await localServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/to") {
      res.writeHead(Number(url.searchParams.get("status")), { location: url.searchParams.get("location") ?? "/" });
      return res.end("moved");
    }
    if (url.pathname === "/loop") {
      res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` });
      return res.end();
    }
    res.end(`here ${url.pathname}`);
  });
});
afterAll(async () => {
  await target.close();
  await origin.close();
});

function redirect(status: number, location: string): string {
  return `${origin.origin}/to?status=${status}&location=${encodeURIComponent(location)}`;
}

async function refusal(call: Promise<unknown>): Promise<ToolError> {
  const error = await call.then(
    () => new Error("the request was not refused"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe("PERMISSION_DENIED");
  return error as ToolError;
}

describe("the guarded fetch's redirects", () => {
  it("refuses a redirect to a host outside the allow list, never reaching it", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const error = await refusal(fetch(redirect(302, `http://localhost:${target.port}/landed`)));
    expect(error.message).toBe(
      "connector network rules: localhost is not an allowed host of this connector (its URLs' hosts and allowHosts)",
    );
    expect(target.seen).toHaveLength(0);
  });

  it("refuses a redirect to the metadata address even when the list names it", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1", "169.254.169.254"], allowPrivateNetwork: true });
    const error = await refusal(fetch(redirect(307, "http://169.254.169.254/latest/meta-data/")));
    expect(error.message).toBe("connector network rules: 169.254.169.254 is a cloud metadata address");
  });

  it("follows a 307 to another allowed origin with method and body, keeping standard headers and dropping credentials and custom ones", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1", "localhost"], allowPrivateNetwork: true });
    const response = await fetch(redirect(307, `http://localhost:${target.port}/landed`), {
      method: "POST",
      headers: {
        authorization: "Bearer abc",
        cookie: "k=v",
        "x-api-key": "key",
        "mcp-session-id": "sess",
        accept: "application/json",
        "content-type": "text/plain",
      },
      body: "payload",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("landed");
    const seen = target.seen.at(-1)!;
    expect(seen).toMatchObject({ method: "POST", path: "/landed", body: "payload" });
    expect(seen.headers).toMatchObject({ accept: "application/json", "content-type": "text/plain" });
    for (const dropped of ["authorization", "cookie", "x-api-key", "mcp-session-id"])
      expect(seen.headers[dropped], dropped).toBeUndefined();
  });

  it("keeps every header on a redirect within the same origin", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const response = await fetch(redirect(301, "/second"), {
      headers: { authorization: "Bearer abc", "x-api-key": "key" },
    });
    expect(await response.text()).toBe("here /second");
    expect(origin.seen.at(-1)!.headers).toMatchObject({ authorization: "Bearer abc", "x-api-key": "key" });
  });

  it("turns a POST answered 303 into a GET without its body or body headers", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const response = await fetch(redirect(303, "/after"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(await response.text()).toBe("here /after");
    const seen = origin.seen.at(-1)!;
    expect(seen).toMatchObject({ method: "GET", path: "/after", body: "" });
    expect(seen.headers["content-type"]).toBeUndefined();
  });

  it("refuses past five redirects", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const before = origin.seen.length;
    const error = await refusal(fetch(`${origin.origin}/loop`));
    expect(error.message).toBe(
      `connector network rules: 127.0.0.1:${origin.port} is redirecting past the limit of 5 redirects`,
    );
    expect(origin.seen.length - before).toBe(6);
  });

  it("returns a redirect as it is under redirect: manual (the MCP SDK's own policy)", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const response = await fetch(redirect(302, `http://localhost:${target.port}/landed`), { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`http://localhost:${target.port}/landed`);
    await response.body?.cancel();
  });

  it("rejects a redirect under redirect: error", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const error = await fetch(redirect(302, "/second"), { redirect: "error" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe("NETWORK");
  });
});
