import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "tai42-bad-script-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a module registering a malformed script file", () => {
  it("should stop tai serve at startup with the file and the path of the problem", async () => {
    const r = await runCli(["serve"], {
      TAI_MODULES: "test/fixtures/bad-script-module.ts",
      PORT: "0",
      DATABASE_URL: `file:${join(dir, "t.db")}`,
    });
    const file = fileURLToPath(new URL("../../fixtures/bad-script.yaml", import.meta.url));
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain("listening");
    expect(r.stderr).toContain('failed to load module "test/fixtures/bad-script-module.ts"');
    expect(r.stderr).toContain(`script file ${file}: /turns/0/toolCalls/0/name: must be a string (the tool's name)`);
  }, 60_000);
});
