import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { ToolError } from "../../../src/errors.ts";
import { localServer, type LocalServer } from "./servers.ts";

/** The ToolError a call rejected with (failing the test when it resolved). */
async function failure(call: Promise<unknown>): Promise<ToolError> {
  const error = await call.then(
    () => new Error("the request was not refused"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

let server: LocalServer;

beforeAll(async () => {
  server = await localServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ ok: true }));
  });
});
afterAll(() => server.close());

describe("the guarded fetch's address rules", () => {
  it("refuses a loopback server without allowPrivateNetwork, before any connection", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: false });
    const error = await failure(fetch(`${server.origin}/x`));
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      "connector network rules: 127.0.0.1 is a loopback address, allowed only with allowPrivateNetwork",
    );
    expect(server.seen).toHaveLength(0);
  });

  it("reaches the same server with allowPrivateNetwork, as plain JSON", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const response = await fetch(`${server.origin}/json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.seen.at(-1)).toMatchObject({ method: "POST", path: "/json", body: "{}" });
  });

  it("lets localhost pass the allow list, resolves it, and refuses the loopback address it resolves to", async () => {
    const before = server.seen.length;
    const fetch = guardedFetch({ allowHosts: ["localhost"], allowPrivateNetwork: false });
    const error = await failure(fetch(`http://localhost:${server.port}/x`));
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toMatch(
      /^connector network rules: localhost resolves to (127\.0\.0\.1|::1), a loopback address, allowed only with allowPrivateNetwork$/,
    );
    expect(server.seen.length).toBe(before);
    const allowed = await guardedFetch({ allowHosts: ["localhost"], allowPrivateNetwork: true })(
      `http://localhost:${server.port}/local`,
    );
    expect(allowed.status).toBe(200);
  });

  it("refuses the cloud metadata address even with allowPrivateNetwork, at once and naming the rule", async () => {
    const fetch = guardedFetch({ allowHosts: ["169.254.169.254", "[fd00:ec2::254]"], allowPrivateNetwork: true });
    const started = performance.now();
    const error = await failure(fetch("http://169.254.169.254/latest/meta-data/iam/security-credentials/"));
    expect(performance.now() - started).toBeLessThan(200);
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toBe("connector network rules: 169.254.169.254 is a cloud metadata address");
    const v6 = await failure(fetch("http://[fd00:ec2::254]/latest/"));
    expect(v6.message).toBe("connector network rules: [fd00:ec2::254] is a cloud metadata address");
  });

  it("refuses ::ffff:127.0.0.1, the IPv4-mapped form of loopback, without allowPrivateNetwork", async () => {
    const fetch = guardedFetch({ allowHosts: ["[::ffff:127.0.0.1]"], allowPrivateNetwork: false });
    const error = await failure(fetch(`http://[::ffff:127.0.0.1]:${server.port}/x`));
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toBe(
      "connector network rules: [::ffff:7f00:1] is a loopback address (IPv4-mapped 127.0.0.1), allowed only with allowPrivateNetwork",
    );
  });

  it("refuses a host not in the allow list before resolving it (an unresolvable name is refused, not a DNS failure)", async () => {
    const fetch = guardedFetch({ allowHosts: ["api.example.test"], allowPrivateNetwork: true });
    const error = await failure(fetch("http://elsewhere.invalid/x"));
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toBe(
      "connector network rules: elsewhere.invalid is not an allowed host of this connector (its URLs' hosts and allowHosts)",
    );
    const ip = await failure(fetch(`${server.origin}/x`));
    expect(ip.message).toMatch(/127\.0\.0\.1 is not an allowed host/);
  });

  it("matches a *.domain pattern on a subdomain (which is then resolved) and refuses its apex before DNS", async () => {
    const fetch = guardedFetch({ allowHosts: ["*.example.invalid"], allowPrivateNetwork: false });
    const sub = await failure(fetch("http://api.example.invalid/x"));
    expect(sub.kind).toBe("NETWORK");
    expect(sub.message).toMatch(
      /^connector network: api\.example\.invalid (does not resolve|could not be resolved) \(DNS\)$/,
    );
    const apex = await failure(fetch("http://example.invalid/x"));
    expect(apex.kind).toBe("PERMISSION_DENIED");
    expect(apex.message).toMatch(/^connector network rules: example\.invalid is not an allowed host/);
  });

  it("refuses a protocol other than http and https", async () => {
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const error = await failure(fetch("file:///etc/passwd"));
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toBe("connector network rules: file: is not an allowed protocol (http and https only)");
  });

  it("fails NETWORK, naming host and port, when nothing listens there", async () => {
    const closed = await localServer((_req, res) => res.end());
    await closed.close();
    const fetch = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    const error = await failure(fetch(`${closed.origin}/x`));
    expect(error.kind).toBe("NETWORK");
    expect(error.message).toBe(`connector network: 127.0.0.1:${closed.port} refused the connection`);
  });

  it("fails NETWORK when the server drops the connection before answering", async () => {
    const dropping = await localServer((req) => req.socket.destroy());
    try {
      const error = await failure(
        guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true })(`${dropping.origin}/x`),
      );
      expect(error.kind).toBe("NETWORK");
      expect(error.message).toMatch(
        new RegExp(`^connector network: 127\\.0\\.0\\.1:${dropping.port} (closed|reset) the connection$`),
      );
    } finally {
      await dropping.close();
    }
  });

  it("fails NETWORK when TLS cannot be negotiated (https to a plain HTTP server)", async () => {
    const error = await failure(
      guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true })(`https://127.0.0.1:${server.port}/x`),
    );
    expect(error.kind).toBe("NETWORK");
    expect(error.message).toMatch(
      new RegExp(`^connector network: 127\\.0\\.0\\.1:${server.port} failed TLS \\(\\w+\\)$`),
    );
  });

  it("names no header, path, query or body in any refusal or failure", async () => {
    const secret = "s3cr3t-token-value-7781";
    const init = { method: "POST", headers: { authorization: `Bearer ${secret}`, "x-api-key": secret }, body: secret };
    const closed = await localServer((_req, res) => res.end());
    await closed.close();
    const errors = await Promise.all([
      failure(
        guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: false })(
          `${server.origin}/${secret}?k=${secret}`,
          init,
        ),
      ),
      failure(guardedFetch({ allowHosts: [], allowPrivateNetwork: true })(`http://h.invalid/${secret}`, init)),
      failure(
        guardedFetch({ allowHosts: ["169.254.169.254"], allowPrivateNetwork: true })(
          `http://169.254.169.254/${secret}`,
          init,
        ),
      ),
      failure(
        guardedFetch({ allowHosts: ["localhost"], allowPrivateNetwork: false })(`http://localhost:1/${secret}`, init),
      ),
      failure(
        guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true })(
          `${closed.origin}/${secret}?k=${secret}`,
          init,
        ),
      ),
      failure(
        guardedFetch({ allowHosts: ["*.invalid"], allowPrivateNetwork: true })(`http://a.invalid/${secret}`, init),
      ),
    ]);
    for (const error of errors) {
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
      expect(String(error.cause ?? "")).not.toContain(secret);
    }
  });
});
