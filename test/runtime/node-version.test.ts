import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { boundaries, compare, satisfies, type Version } from "../helpers/node-range.ts";

type Locked = { engines?: { node?: string }; dev?: boolean };
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, Locked>;
};
const locked = Object.entries(lock.packages).filter(([path, p]) => path && p.engines?.node) as [
  string,
  Locked & { engines: { node: string } },
][];
const running = process.versions.node.split(".").map(Number) as unknown as Version;
const name = (path: string) => path.replace(/^.*node_modules\//, "");

/** The versions `range` and the intersection of `deps` disagree on, with who refuses each. */
function disagreements(range: string, deps: typeof locked): string[] {
  const unique = new Map(boundaries([range, ...deps.map(([, p]) => p.engines.node)]).map((v) => [v.join("."), v]));
  const candidates = [...unique.values()].sort(compare);
  const out: string[] = [];
  for (const v of candidates) {
    const refusing = [
      ...new Set(
        deps.filter(([, p]) => !satisfies(p.engines.node, v)).map(([path, p]) => `${name(path)} (${p.engines.node})`),
      ),
    ];
    if (satisfies(range, v) !== (refusing.length === 0))
      out.push(
        `${v.join(".")}: engines ${satisfies(range, v) ? "admits" : "refuses"} it; refused by [${refusing.join(", ")}]`,
      );
  }
  return out;
}

describe("Node.js versions", () => {
  it("the running Node is one package.json engines admits (scripts/use-node24.sh installs 24 LTS)", () => {
    expect(satisfies(pkg.engines.node, running), `Node ${process.versions.node} against ${pkg.engines.node}`).toBe(
      true,
    );
  });

  it("package.json engines admits exactly the versions every runtime dependency admits (package-lock.json)", () => {
    expect(
      disagreements(
        pkg.engines.node,
        locked.filter(([, p]) => !p.dev),
      ),
    ).toEqual([]);
  });

  it("every locked package, dev dependencies included, admits the running Node, so npm ci prints no EBADENGINE", () => {
    const refusing = locked
      .filter(([, p]) => !satisfies(p.engines.node, running))
      .map(([path, p]) => `${name(path)} (${p.engines.node})`);
    expect(refusing).toEqual([]);
  });

  it("has the built-ins the sources rely on instead of hand-written code", () => {
    expect(typeof AbortSignal.any).toBe("function");
    expect(typeof Promise.withResolvers).toBe("function");
  });
});
