import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { ToolError } from "../../../src/errors.ts";
import { localServer, type LocalServer } from "./servers.ts";

let target: LocalServer;
let proxy: LocalServer;

beforeAll(async () => {
  // Answers /to?location=L with a 302 there; anything else 200 with the Host it was sent.
  target = await localServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/to") {
      res.writeHead(302, { location: url.searchParams.get("location") ?? "/" });
      return res.end();
    }
    res.end(`host ${req.headers.host}`);
  });
  proxy = await localServer((_req, res) => res.end("proxied"));
});
afterAll(async () => {
  await target.close();
  await proxy.close();
});

async function refusal(fetchFn: typeof fetch, url: string | Request, init?: RequestInit): Promise<ToolError> {
  const error = await fetchFn(url, init).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe("PERMISSION_DENIED");
  return error as ToolError;
}

describe("the guarded fetch against an adversary's URLs", () => {
  it.each(["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "0x7f000001"])(
    "reads the IPv4 literal %s as 127.0.0.1: refused as loopback without allowPrivateNetwork",
    async (host) => {
      const fetchFn = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: false });
      const error = await refusal(fetchFn, `http://${host}:${target.port}/`);
      expect(error.message).toBe(
        "connector network rules: 127.0.0.1 is a loopback address, allowed only with allowPrivateNetwork",
      );
    },
  );

  it.each([
    ["[::ffff:a9fe:a9fe]", "IPv4-mapped 169.254.169.254"],
    ["[64:ff9b::169.254.169.254]", "NAT64 169.254.169.254"],
    ["[2002:a9fe:a9fe::1]", "6to4 169.254.169.254"],
    ["[::169.254.169.254]", "IPv4-compatible 169.254.169.254"],
  ])(
    "refuses %s, an IPv6 form of the metadata address, even when listed and with allowPrivateNetwork",
    async (host, form) => {
      const fetchFn = guardedFetch({ allowHosts: [host], allowPrivateNetwork: true });
      const error = await refusal(fetchFn, `http://${host}/latest/meta-data`);
      expect(error.message).toContain(`a cloud metadata address (${form})`);
    },
  );

  it("refuses an IPv6 zone id, which no URL may carry", async () => {
    const fetchFn = guardedFetch({ allowHosts: ["[fe80::1]"], allowPrivateNetwork: true });
    const error = await fetchFn("http://[fe80::1%25eth0]/").then(
      () => null,
      (e: unknown) => e as ToolError,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect(error!.message).toBe("connector network: the request URL is invalid");
  });

  it("matches LOCALHOST. to the listed localhost, then never reaches the loopback server behind it", async () => {
    const before = target.seen.length;
    const error = await guardedFetch({ allowHosts: ["localhost"], allowPrivateNetwork: false })(
      `http://LOCALHOST.:${target.port}/`,
    ).then(
      () => null,
      (e: unknown) => e as ToolError,
    );
    // Past the allow list (the name matches), the name either resolves to loopback (refused) or not at all (this
    // resolver's choice).
    expect(error).toBeInstanceOf(ToolError);
    expect(error!.message).not.toContain("not an allowed host");
    expect(error!.message).toMatch(
      /^connector network rules: localhost\. resolves to (127\.0\.0\.1|::1), a loopback address|^connector network: localhost\.:\d+ does not resolve/,
    );
    expect(target.seen.length).toBe(before);
  });

  it("judges http://127.0.0.1@evil.example/ by its real host, evil.example", async () => {
    const error = await refusal(
      guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true }),
      "http://127.0.0.1@evil.example/",
    );
    expect(error.message).toBe(
      "connector network rules: evil.example is not an allowed host of this connector (its URLs' hosts and allowHosts)",
    );
  });

  it("checks a Request object's URL like a string's", async () => {
    const error = await refusal(
      guardedFetch({ allowHosts: ["169.254.169.254"], allowPrivateNetwork: true }),
      new Request("http://169.254.169.254/latest"),
    );
    expect(error.message).toBe("connector network rules: 169.254.169.254 is a cloud metadata address");
  });

  it("connects to the checked address whatever Host header the caller sets", async () => {
    const fetchFn = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const response = await fetchFn(`${target.origin}/`, { headers: { host: "169.254.169.254" } });
    expect(response.status).toBe(200);
    expect(target.seen.at(-1)!.path).toBe("/");
    await response.text();
  });

  it("does not honour HTTP_PROXY or HTTPS_PROXY: the request goes straight to its host", async () => {
    const saved = { http: process.env.HTTP_PROXY, https: process.env.HTTPS_PROXY, lower: process.env.http_proxy };
    process.env.HTTP_PROXY = proxy.origin;
    process.env.http_proxy = proxy.origin;
    process.env.HTTPS_PROXY = proxy.origin;
    try {
      const response = await guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true })(
        `${target.origin}/direct`,
      );
      expect(await response.text()).toBe(`host 127.0.0.1:${target.port}`);
      expect(proxy.seen).toEqual([]);
    } finally {
      for (const [name, value] of [
        ["HTTP_PROXY", saved.http],
        ["HTTPS_PROXY", saved.https],
        ["http_proxy", saved.lower],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it.each([
    "http://[::ffff:169.254.169.254]/",
    "http://0xa9fea9fe/",
    "file:///etc/passwd",
    "http://127.0.0.1@169.254.169.254/",
  ])("refuses a redirect to %s, never following it", async (location) => {
    const fetchFn = guardedFetch({
      allowHosts: ["127.0.0.1", "169.254.169.254", "[::ffff:169.254.169.254]"],
      allowPrivateNetwork: true,
    });
    const error = await refusal(fetchFn, `${target.origin}/to?location=${encodeURIComponent(location)}`);
    expect(error.message).toMatch(/cloud metadata address|not an allowed protocol/);
  });
});
