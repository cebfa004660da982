import { mkdirSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliDatabase } from "../helpers/cli-database.ts";
import { runCli } from "../helpers/cli.ts";

/** `tai schedules list|put|delete` (docs/run-lifecycle.md §11.7) over the demo `echo` tool. */
describe("tai schedules", () => {
  let env: Record<string, string>;
  let user: string;
  let dir: string;

  beforeAll(async () => {
    const db = await cliDatabase();
    env = { DATABASE_URL: db.url, TAI_KEY: db.admin };
    user = db.user;
    dir = resolve(".tmp", randomUUID());
    mkdirSync(dir, { recursive: true });
  });

  it("puts a schedule from a YAML file, replaces it by flags, lists it and deletes it", async () => {
    const path = resolve(dir, "nightly.yaml");
    writeFileSync(
      path,
      'name: nightly\ntool: echo\ninput: { text: "hi" }\ncron: "0 2 * * *"\ntimeZone: Europe/Paris\n',
    );
    const put = await runCli(["schedules", "put", path], env);
    expect(put.stderr).toContain('stored schedule "nightly" as v1');
    expect(put.code).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({
      name: "nightly",
      tool: "echo",
      timeZone: "Europe/Paris",
      version: 1,
    });

    const again = await runCli(["schedules", "put", path, "--cron", "0 3 * * *", "--expected-version", "1"], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ cron: "0 3 * * *", version: 2 });

    const list = await runCli(["schedules", "list"], env);
    expect(list.stdout).toMatch(/^nightly\s+v2\s+echo\s+"0 3 \* \* \*" Europe\/Paris/m);
    const json = await runCli(["schedules", "list", "--json"], env);
    expect(JSON.parse(json.stdout).map((s: { name: string }) => s.name)).toEqual(["nightly"]);

    const del = await runCli(["schedules", "delete", "nightly"], env);
    expect(del.code).toBe(0);
    expect(del.stderr).toContain('deleted schedule "nightly"');
  }, 180_000);

  it("refuses a bad cron (exit 2, naming the field) and a USER (FORBIDDEN), storing nothing", async () => {
    const bad = await runCli(
      ["schedules", "put", "--name", "x", "--tool", "echo", "--input", '{"text":"a"}', "--cron", "soon"],
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("/cron");
    const forbidden = await runCli(["schedules", "list", "--key", user], env);
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toContain("FORBIDDEN");
    const list = await runCli(["schedules", "list", "--json"], env);
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 180_000);
});
