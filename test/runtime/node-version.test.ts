import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const [major, minor] = process.versions.node.split(".").map(Number);

describe("Node.js runtime", () => {
  it("is 22.12 or newer (package.json engines; scripts/use-node24.sh installs 24 LTS)", () => {
    expect(major > 22 || (major === 22 && minor >= 12), `running on Node ${process.versions.node}`).toBe(true);
  });

  it("package.json declares the same floor", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(">=22.12");
  });

  it("has the built-ins the sources rely on instead of hand-written code", () => {
    expect(typeof AbortSignal.any).toBe("function");
    expect(typeof Promise.withResolvers).toBe("function");
  });
});
