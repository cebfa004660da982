import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = new URL("types/typed-client.ts", import.meta.url);

describe("tai42/client's types (test/client/types/typed-client.ts, compiled by tsc)", () => {
  it("should type results, variables, subscriptions, unknown fields and StreamEvent narrowing exactly as the fixture's @ts-expect-error lines say", async () => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [tsc, "-p", "test/client/types/tsconfig.json"],
      { cwd: ROOT },
    ).catch((e: { stdout: string; stderr: string }) => e);
    // tsc fails on an error the fixture does not expect, and on an expected one that does not happen.
    expect(`${stdout}${stderr}`).toBe("");
  }, 60_000);

  it("should not be vacuous: the fixture expects errors for each property it covers", () => {
    const expected = readFileSync(FIXTURE, "utf8").match(/@ts-expect-error/g) ?? [];
    expect(expected.length).toBeGreaterThanOrEqual(15);
  });

  it("should not be vacuous about typed dispatch either: typed-dispatch.ts expects an error for each misuse it covers", () => {
    const text = readFileSync(new URL("types/typed-dispatch.ts", import.meta.url), "utf8");
    const expected = text.match(/@ts-expect-error/g) ?? [];
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(text).toContain("createTaiClient<TaiTools>(");
    expect(text).toContain("apiKey: process.env.TAI_KEY");
  });
});
