import { describe, expect, it } from "vitest";
import { Registry } from "../../src/registry/registry.ts";
import { Surface } from "../../src/registry/surface.ts";
import type { SurfaceEntry } from "../../src/registry/surface-entry.ts";
import type { Manifest } from "../../src/manifests/manifest.ts";
import { resolvePolicy } from "../../src/retry/policy.ts";
import { defineTool } from "../../src/tools/define-tool.ts";

const tool = (name: string, module: string, extra: Record<string, unknown> = {}) =>
  defineTool(
    {
      name,
      description: `${name} from ${module}`,
      parameters: { type: "object", properties: { q: { type: "string" } } },
      execute: () => module,
      ...extra,
    },
    undefined,
    module,
  );

const policy = (name: string, maxAttempts: number) => resolvePolicy(name, { maxAttempts, idempotent: true });

/** An entry a source contributes, built on `base` (what presets and branches do). */
const composed = (
  name: string,
  base: SurfaceEntry | undefined,
  origin: SurfaceEntry["origin"] = "PRESET",
): SurfaceEntry[] =>
  base
    ? [
        {
          ...base,
          name,
          label: undefined,
          origin,
          baseTool: base.name,
          policyChain: [name, ...base.policyChain],
          module: "test",
        },
      ]
    : [];

const manifest = (name: string): Manifest => ({
  name,
  description: null,
  version: 1,
  active: true,
  document: {},
  createdAt: "",
  updatedAt: "",
});

describe("the surface", () => {
  it("should list every registered tool as a TOOL entry, sorted, and resolve it by name", () => {
    const registry = new Registry();
    registry.addTool(tool("zeta", "m"));
    registry.addTool(tool("alpha", "m", { tier: "write", label: "Alpha" }));
    const surface = new Surface([registry]);
    expect(surface.list().map((e) => [e.name, e.origin, e.tier])).toEqual([
      ["alpha", "TOOL", "write"],
      ["zeta", "TOOL", "read"],
    ]);
    expect(surface.resolve("alpha")).toMatchObject({ label: "Alpha", policyChain: ["alpha"], module: "m" });
    expect(surface.resolve("nope")).toBeUndefined();
  });

  it("should let a later registry's tool shadow an earlier one's of the same name", () => {
    const [builtins, user] = [new Registry(), new Registry()];
    builtins.addTool(tool("echo", "builtin"));
    user.addTool(tool("echo", "user"));
    expect(new Surface([builtins, user]).resolve("echo")!.module).toBe("user");
  });

  it("should only see a registration after a rebuild, and tell its listeners of each rebuild", () => {
    const registry = new Registry();
    const surface = new Surface([registry]);
    let rebuilt = 0;
    surface.onChange(() => rebuilt++);
    registry.addTool(tool("late", "m"));
    expect(surface.resolve("late")).toBeUndefined();
    surface.rebuild();
    expect([surface.resolve("late")?.name, rebuilt]).toEqual(["late", 1]);
  });

  it("should build primary sources before composed ones, so a composed entry may build on an agent", () => {
    const surface = new Surface([new Registry()]);
    surface.addSource((base) => composed("over_agent", base("agent_tool")), "composed");
    surface.addSource(() => [agentLike("agent_tool")]);
    surface.rebuild();
    expect(surface.resolve("over_agent")).toMatchObject({
      origin: "PRESET",
      baseTool: "agent_tool",
      policyChain: ["over_agent", "agent_tool"],
    });
  });

  it("should never let a source replace a registered tool's entry", () => {
    const registry = new Registry();
    registry.addTool(tool("echo", "registered"));
    const surface = new Surface([registry]);
    surface.addSource(() => [{ ...agentLike("echo"), module: "source" }]);
    surface.rebuild();
    expect(surface.resolve("echo")).toMatchObject({ origin: "TOOL", module: "registered" });
  });

  it("should keep a curated entry off the list and dispatch, yet resolvable as a base", () => {
    const registry = new Registry();
    registry.addTool(tool("hidden", "m", { apiTool: false }));
    registry.addTool(tool("shown", "m"));
    registry.addTool(tool("unselected", "m"));
    const surface = new Surface([registry]);
    surface.setSelection((name) => name !== "unselected");
    surface.rebuild();
    expect(surface.list().map((e) => e.name)).toEqual(["shown"]);
    expect(surface.list({ includeCurated: true }).map((e) => e.name)).toEqual(["hidden", "shown", "unselected"]);
    expect([surface.resolve("hidden"), surface.resolve("unselected")]).toEqual([undefined, undefined]);
    expect(surface.base("hidden")?.name).toBe("hidden");
  });

  it("should filter its list by origin, tier and a case-insensitive search of name, label or description", () => {
    const registry = new Registry();
    registry.addTool(tool("read_mail", "m", { label: "Inbox" }));
    registry.addTool(tool("send_mail", "m", { tier: "write" }));
    const surface = new Surface([registry]);
    surface.addSource((base) => composed("mail_preset", base("read_mail")), "composed");
    surface.rebuild();
    const names = (filter: Parameters<Surface["list"]>[0]) => surface.list(filter).map((e) => e.name);
    expect(names({ origin: "PRESET" })).toEqual(["mail_preset"]);
    expect(names({ tier: "write" })).toEqual(["send_mail"]);
    expect(names({ search: "INBOX" })).toEqual(["read_mail"]);
  });

  describe("versions and snapshots", () => {
    it("should pin one version in a snapshot: a rebuild swaps in a new one and leaves the held one as it was", () => {
      const registry = new Registry();
      registry.addTool(tool("first", "m"));
      const surface = new Surface([registry]);
      surface.setStored({ version: 3, activeManifest: manifest("before") });
      surface.rebuild();
      const held = surface.snapshot();

      registry.addTool(tool("second", "m"));
      surface.setStored({ version: 4, activeManifest: null });
      surface.setSelection((name) => name === "second");
      surface.rebuild();

      expect([held.version, held.activeManifest?.name, held.list().map((e) => e.name)]).toEqual([
        3,
        "before",
        ["first"],
      ]);
      expect([surface.version, surface.activeManifest, surface.list().map((e) => e.name)]).toEqual([
        4,
        null,
        ["second"],
      ]);
      expect(surface.snapshot()).not.toBe(held);
    });

    it("should start at version 0 with no active manifest", () => {
      const surface = new Surface([new Registry()]);
      expect([surface.version, surface.activeManifest]).toEqual([0, null]);
    });
  });

  describe("retry declarations", () => {
    it("should give an entry the first declaration along its chain, naming where it was declared", () => {
      const registry = new Registry();
      registry.addTool(tool("base", "m", { retry: { maxAttempts: 2, idempotent: true } }));
      const surface = new Surface([registry]);
      surface.addSource((b) => [...composed("inherits", b("base")), ...composed("own", b("base"))], "composed");
      surface.setDeclaredPolicies(new Map([["own", policy("own", 5)]]));
      surface.rebuild();
      expect(surface.policyFor(surface.resolve("inherits")!)).toMatchObject({
        declaredOn: "base",
        policy: { maxAttempts: 2 },
      });
      expect(surface.policyFor(surface.resolve("own")!)).toMatchObject({
        declaredOn: "own",
        policy: { maxAttempts: 5 },
      });
    });

    it("should prefer a stored declaration, then the declaring tool's own registry over a shadowed tool's", () => {
      const [builtins, user] = [new Registry(), new Registry()];
      builtins.addTool(tool("echo", "builtin", { retry: { maxAttempts: 4, idempotent: true } }));
      user.addTool(tool("echo", "user"));
      builtins.declarePolicy("loose", policy("loose", 2));
      const surface = new Surface([builtins, user]);
      expect(surface.declaredOn("echo")).toBeUndefined();
      expect(surface.declaredOn("loose")).toMatchObject({ maxAttempts: 2 });
      surface.setDeclaredPolicies(new Map([["echo", policy("echo", 3)]]));
      surface.rebuild();
      expect(surface.declaredOn("echo")).toMatchObject({ maxAttempts: 3 });
    });
  });
});

/** The fields that make an entry look like an agent's (origin AGENT), without an agent class. */
function agentLike(name: string): SurfaceEntry {
  return {
    name,
    description: "An agent.",
    origin: "AGENT",
    tier: "read",
    inputSchema: { type: "object" },
    executionMode: "parallel",
    pauses: false,
    extensionStack: [],
    timeoutSeconds: 30,
    listed: true,
    policyChain: [name],
    prepare: (input) => ({ ok: true, value: input }),
    invoke: async () => "agent",
    module: "agent",
  };
}
