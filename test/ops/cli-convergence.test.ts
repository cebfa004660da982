import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testRunDir } from "../helpers/databases.ts";
import { runCli } from "../helpers/cli.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { timed } from "./support.ts";

/**
 * A running SQLite server with no Redis, and `tai` one-shot commands writing the same
 * database (docs/deploy.md §"Configuration converges"): nothing carries their change to
 * the server but the stored surface version, which it reads every TAI_SYNC_SECONDS.
 */
const SYNC_SECONDS = 2;
const SLACK_MS = 1000;
const ADMIN_KEY = "tai42-ops-cli-admin-key-0001";

type Served = { activeManifest: { name: string } | null; tools: { name: string }[] };

describe("a CLI write against a running SQLite server without Redis", () => {
  let server: TestRuntime | undefined;
  afterEach(async () => {
    await server?.dispose();
    server = undefined;
  });

  it("should be served within TAI_SYNC_SECONDS: a preset created and a manifest imported and activated by `tai`", async () => {
    server = await testRuntime({ kind: "sqlite", config: { syncSeconds: SYNC_SECONDS } });
    expect(server.config.redisUrl).toBeUndefined();
    await server.keys.bootstrap(ADMIN_KEY);
    const gql = gqlClient(server);
    const env = { DATABASE_URL: server.config.databaseUrl, TAI_KEY: ADMIN_KEY };

    const created = await runCli(["presets", "create", "greet", "--base", "echo", "--kwargs", '{"text":"hello"}'], env);
    expect(created.code, created.stderr).toBe(0);
    const afterPreset = await timed(
      "the server to serve the preset",
      async () => (await gql<Served>("{ tools { name } }")).data!.tools.some((t) => t.name === "greet"),
      SYNC_SECONDS * 1000 + SLACK_MS,
    );
    expect(afterPreset).toBeLessThanOrEqual(SYNC_SECONDS * 1000 + SLACK_MS);
    expect(
      (
        await server.dispatcher.run({
          tool: "greet",
          input: {},
          caller: { role: "USER", keyName: null, keyId: null },
          door: "runtime",
        })
      ).status,
    ).toBe("SUCCEEDED");

    const file = join(testRunDir(), `no-sleep-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ name: "no-sleep", tools: { exclude: ["sleep"] } }));
    const imported = await runCli(["manifests", "import", file], env);
    expect(imported.code, imported.stderr).toBe(0);
    const activated = await runCli(["manifests", "activate", "no-sleep"], env);
    expect(activated.code, activated.stderr).toBe(0);
    const afterManifest = await timed(
      "the server to serve the activated manifest",
      async () => {
        const d = (await gql<Served>("{ activeManifest { name } tools { name } }")).data!;
        return d.activeManifest?.name === "no-sleep" && !d.tools.some((t) => t.name === "sleep");
      },
      SYNC_SECONDS * 1000 + SLACK_MS,
    );
    expect(afterManifest).toBeLessThanOrEqual(SYNC_SECONDS * 1000 + SLACK_MS);
  }, 120_000);
});
