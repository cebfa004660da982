import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { cliDatabase } from "../helpers/cli-database.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime } from "../helpers/runtime.ts";

const SLOW = 120_000;
const ENV_NAME = "STRUCT_CLI_SECRET";

/**
 * Issue 23 finding 1 at the CLI's edge: `tai tools run` prints the run with its values
 * scrubbed, never its structure, even when a known secret (here an ADMIN preset's `!ENV`
 * value) equals its status.
 */
describe("tai tools run with a known secret equal to a status", () => {
  afterEach(() => {
    delete process.env[ENV_NAME];
  });

  it(
    "should print the run's status, tool and door whole and its input scrubbed",
    async () => {
      const { url, admin } = await cliDatabase();
      process.env[ENV_NAME] = "SUCCEEDED";
      const rt = await testRuntime({ databaseUrl: url });
      const created = await gqlClient(rt)(
        `mutation($k: JSONObject!) { createPreset(input: { name: "envy", description: "echo a configured value", baseTool: "echo", fixedKwargs: $k }) { name } }`,
        { k: { text: `!ENV ${ENV_NAME}` } },
        admin,
      );
      expect(created.errors).toBeUndefined();
      await rt.close();

      const run = await runCli(["tools", "run", "echo", "--input", '{"text":"it SUCCEEDED"}'], {
        DATABASE_URL: url,
        TAI_KEY: admin,
        [ENV_NAME]: "SUCCEEDED",
      });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        tool: "echo",
        status: "SUCCEEDED",
        door: "cli",
        callerRole: "ADMIN",
        input: { text: "it [redacted]" },
      });
      expect(run.stdout).not.toContain("it SUCCEEDED");
    },
    SLOW,
  );
});
