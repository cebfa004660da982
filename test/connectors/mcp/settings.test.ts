import { describe, expect, it } from "vitest";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";

const issues = (settings: unknown) => {
  const r = mcpKind.settings.safeParse(settings);
  return r.success ? [] : r.error.issues.map((i) => ({ path: `/${i.path.join("/")}`, message: i.message }));
};

describe("the mcp kind's settings", () => {
  it("accepts a stdio server with args, env markers and a cwd, and a Streamable HTTP server with header markers", () => {
    expect(
      issues({
        command: "node",
        args: ["server.js"],
        env: { TOKEN: "!ENV GH_TOKEN" },
        cwd: "/srv",
        elicitation: false,
        requestTimeoutSeconds: 10,
      }),
    ).toEqual([]);
    expect(
      issues({
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "!ENV MCP_AUTH" },
        allowHosts: ["*.example.com"],
        allowPrivateNetwork: false,
      }),
    ).toEqual([]);
  });

  it("requires exactly one of command and url, naming the field", () => {
    expect(issues({})).toEqual([{ path: "/command", message: expect.stringMatching(/`command`.*`url`/) }]);
    expect(issues({ command: "node", url: "https://x.example/mcp" })).toEqual([
      { path: "/url", message: "give `command` or `url`, not both" },
    ]);
  });

  it("refuses stdio fields on an HTTP server and headers on a stdio one, at their paths", () => {
    expect(issues({ url: "https://x.example/mcp", args: ["a"], env: {} }).map((i) => i.path)).toEqual([
      "/args",
      "/env",
    ]);
    expect(issues({ command: "node", headers: { A: "!ENV B" } }).map((i) => i.path)).toEqual(["/headers"]);
  });

  it("refuses a non-http URL, an unknown field, a non-string env value and a non-positive timeout at their paths", () => {
    expect(issues({ url: "file:///etc/passwd" }).map((i) => i.path)).toEqual(["/url"]);
    expect(issues({ command: "node", bogus: 1 }).map((i) => i.path)).toEqual(["/"]);
    expect(issues({ command: "node", env: { A: 1 } }).map((i) => i.path)).toEqual(["/env/A"]);
    expect(issues({ command: "node", requestTimeoutSeconds: 0 }).map((i) => i.path)).toEqual([
      "/requestTimeoutSeconds",
    ]);
  });

  it("seals every env and header value, and reaches only its url's origin", () => {
    expect(mcpKind.sealed).toEqual(["env/*", "headers/*"]);
    expect(mcpKind.origins({ url: "https://mcp.example.com/v1/mcp" })).toEqual(["https://mcp.example.com/v1/mcp"]);
    expect(mcpKind.origins({ command: "node" })).toEqual([]);
  });
});
