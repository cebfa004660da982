import { mkdirSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliDatabase } from "../helpers/cli-database.ts";
import { runCli } from "../helpers/cli.ts";

/** `tai connectors list|put|refresh|delete` (docs/connectors.md §12) over the fake kind, loaded as a module. */
describe("tai connectors", () => {
  let env: Record<string, string>;
  let user: string;
  let dir: string;
  const file = (name: string, body: unknown) => {
    const path = resolve(dir, name);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };

  beforeAll(async () => {
    const db = await cliDatabase();
    env = {
      DATABASE_URL: db.url,
      TAI_KEY: db.admin,
      TAI_MODULES: "test/fixtures/connector-kind-module.ts",
      CLI_FAKE_TOKEN: "cli-fake-token-0a9b8c",
    };
    user = db.user;
    dir = resolve(".tmp", randomUUID());
    mkdirSync(dir, { recursive: true });
  });

  it("puts a connector from a file, lists it, and its tools run through the chokepoint", async () => {
    const put = await runCli(
      [
        "connectors",
        "put",
        file("acme.json", { name: "acme", kind: "fake", settings: { upstream: "acme", token: "!ENV CLI_FAKE_TOKEN" } }),
      ],
      env,
    );
    expect(put.stderr).toContain('stored connector "acme" as v1 (listing v1, 2 tools)');
    expect(put.code).toBe(0);
    const printed = JSON.parse(put.stdout);
    expect(printed.connector).toMatchObject({ name: "acme", version: 1, settings: { token: "!ENV CLI_FAKE_TOKEN" } });
    expect(printed.change.diff.added).toEqual(["acme_echo", "acme_write_thing"]);
    expect(put.stdout + put.stderr).not.toContain("cli-fake-token-0a9b8c");

    const list = await runCli(["connectors", "list"], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^acme\s+fake\s+v1\s+listing v1\s+2 tools/m);
    const json = await runCli(["connectors", "list", "--json"], env);
    expect(JSON.parse(json.stdout).map((c: { name: string }) => c.name)).toEqual(["acme"]);

    const run = await runCli(["tools", "run", "acme_echo", "--input", '{"text":"hi"}'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "SUCCEEDED", tool: "acme_echo" });
  }, 180_000);

  it("refreshes a connector whose upstream did not change", async () => {
    const r = await runCli(["connectors", "refresh", "acme"], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('connector "acme": the listing did not change');
    expect(JSON.parse(r.stdout)).toMatchObject({ connector: { listingVersion: 1 }, change: null });
  }, 60_000);

  it("exits 2 with the error's message on a refusal: bad settings, a stale version, a USER key", async () => {
    const bad = await runCli(
      [
        "connectors",
        "put",
        file("bad.json", { name: "bad", kind: "fake", settings: { upstream: "bad", token: "literal" } }),
      ],
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("BAD_USER_INPUT");
    expect(bad.stderr).toContain("/settings/token");
    const stale = await runCli(
      [
        "connectors",
        "put",
        file("stale.json", { name: "acme", kind: "fake", settings: { upstream: "acme" } }),
        "--expected-version",
        "5",
      ],
      env,
    );
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain("CONFLICT");
    const asUser = await runCli(["connectors", "list", "--key", user], env);
    expect(asUser.code).toBe(2);
    expect(asUser.stderr).toContain("FORBIDDEN");
    const missing = await runCli(["connectors", "put", resolve(dir, "none.json")], env);
    expect(missing.code).toBe(2);
  }, 180_000);

  it("deletes a connector with its expected version; its tools leave the surface", async () => {
    expect((await runCli(["connectors", "delete", "acme", "--expected-version", "3"], env)).code).toBe(2);
    const del = await runCli(["connectors", "delete", "acme", "--expected-version", "1"], env);
    expect(del.code).toBe(0);
    expect(del.stderr).toContain('deleted connector "acme"');
    expect((await runCli(["connectors", "list", "--json"], env)).stdout.trim()).toBe("[]");
    const again = await runCli(["connectors", "delete", "acme"], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no connector named "acme"');
    const tools = JSON.parse((await runCli(["tools", "list", "--json"], env)).stdout) as { name: string }[];
    expect(tools.map((t) => t.name)).not.toContain("acme_echo");
  }, 120_000);
});
