import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { Registry } from "../../src/registry/registry.ts";
import { resolvePolicy } from "../../src/retry/policy.ts";

import { extension, Helper, tool } from "./fixtures.ts";

describe("the registry", () => {
  it("should look up what it registered by name, with a tool's own retry declaration", () => {
    const registry = new Registry();
    const def = registry.addTool(tool("lookup", { retry: { maxAttempts: 2, idempotent: true } }));
    registry.addAgent(Helper);
    registry.addExtension(extension("shout"));
    expect(registry.tools.get("lookup")).toBe(def);
    expect(registry.policies.get("lookup")).toMatchObject({ maxAttempts: 2, idempotent: true });
    expect(registry.agents.get("helper")).toBe(Helper);
    expect([...registry.extensions.keys()]).toEqual(["shout"]);
  });

  it("should register an extension's tools with it, and its tools' retry declarations", () => {
    const registry = new Registry();
    registry.addExtension(
      extension("kit", [
        {
          name: "kit_tool",
          description: "From the kit.",
          parameters: { type: "object" },
          execute: () => 1,
          retry: { maxAttempts: 3, idempotent: true },
        },
      ]),
    );
    expect(registry.tools.get("kit_tool")).toMatchObject({ source: "kit" });
    expect(registry.policies.get("kit_tool")).toMatchObject({ maxAttempts: 3, idempotent: true });
  });

  it("should tell its listeners synchronously after every registration, until they stop listening", () => {
    const registry = new Registry();
    const heard: string[] = [];
    const stop = registry.onChange(() =>
      heard.push([...registry.tools.keys(), ...registry.policies.keys(), ...registry.strategies.keys()].join(",")),
    );
    registry.addTool(tool("a"));
    registry.declarePolicy("a_preset", resolvePolicy("a_preset", { maxAttempts: 2, idempotent: true }));
    registry.addStrategy("plain", async function* () {});
    stop();
    registry.addTool(tool("b"));
    expect(heard).toEqual(["a", "a,a_preset", "a,a_preset,plain"]);
  });

  it("should keep each registry's names to itself", () => {
    const [one, two] = [new Registry(), new Registry()];
    one.addTool(tool("lookup"));
    two.addTool(tool("lookup"));
    expect([one.tools.size, two.tools.size]).toEqual([1, 1]);
  });

  describe("refusals (nothing is registered then)", () => {
    it("should refuse a tool name that is taken, naming the module that holds it", () => {
      const registry = new Registry();
      registry.addTool(tool("lookup"));
      expect(() => registry.addTool(tool("lookup"))).toThrow(
        'a tool named "lookup" is already registered (module-lookup)',
      );
    });

    it("should refuse a tool whose retry declaration is taken, leaving the tool out", () => {
      const registry = new Registry();
      registry.declarePolicy("lookup", resolvePolicy("lookup", { maxAttempts: 2, idempotent: true }));
      expect(() => registry.addTool(tool("lookup", { retry: { maxAttempts: 3, idempotent: true } }))).toThrow(
        'a retry policy is already declared on "lookup"',
      );
      expect(registry.tools.has("lookup")).toBe(false);
      expect(registry.policies.get("lookup")).toMatchObject({ maxAttempts: 2, idempotent: true });
    });

    it("should refuse an agent whose tool name a tool or an agent holds", () => {
      const registry = new Registry();
      registry.addAgent(Helper);
      expect(() => registry.addAgent(Helper)).toThrow('"helper" is already registered on this app');
      const other = new Registry();
      other.addTool(tool("helper"));
      expect(() => other.addAgent(Helper)).toThrow('"helper" is already registered on this app');
      expect(other.agents.size).toBe(0);
    });

    it("should refuse an extension all or nothing: a taken name, a tool name taken by a tool or an agent, a taken retry declaration", () => {
      const registry = new Registry();
      registry.addTool(tool("taken"));
      registry.addAgent(Helper);
      registry.declarePolicy("declared", resolvePolicy("declared", { maxAttempts: 2, idempotent: true }));
      registry.addExtension(extension("first"));
      const refusals: [ReturnType<typeof extension>, string][] = [
        [extension("first"), 'an extension named "first" is already registered (module-first)'],
        [
          extension("second", [
            { name: "fresh", description: "d", parameters: { type: "object" }, execute: () => 1 },
            { name: "taken", description: "d", parameters: { type: "object" }, execute: () => 1 },
          ]),
          '"second": its tool "taken" is already registered (module-taken)',
        ],
        [
          extension("third", [{ name: "helper", description: "d", parameters: { type: "object" }, execute: () => 1 }]),
          '"third": its tool "helper" is already registered (an agent)',
        ],
        [
          extension("fourth", [
            {
              name: "declared",
              description: "d",
              parameters: { type: "object" },
              execute: () => 1,
              retry: { maxAttempts: 3, idempotent: true },
            },
          ]),
          '"fourth": a retry policy is already declared on "declared"',
        ],
      ];
      for (const [def, message] of refusals) expect(() => registry.addExtension(def)).toThrow(message);
      expect([...registry.extensions.keys()]).toEqual(["first"]);
      expect(registry.tools.has("fresh")).toBe(false);
    });

    it("should refuse a plugin whose name, strategy or provider names are taken, and a strategy a plugin brings", () => {
      const registry = new Registry();
      const noop = async function* () {};
      registry.addPlugin({
        name: "store",
        strategies: { fast: noop },
        checkpointProviders: { mem: {} as never },
        storeProviders: { kv: {} as never },
      });
      registry.addStrategy("own", noop);
      const refusals: [() => unknown, string][] = [
        [() => registry.addPlugin({ name: "store" }), 'a plugin named "store" is already registered on this app'],
        [
          () => registry.addPlugin({ name: "p2", strategies: { own: noop } }),
          'plugin "p2": a strategy named "own" is already registered on this app',
        ],
        [
          () => registry.addPlugin({ name: "p3", checkpointProviders: { mem: {} as never } }),
          'plugin "p3": a checkpoint provider named "mem" is already registered on this app',
        ],
        [
          () => registry.addPlugin({ name: "p4", storeProviders: { kv: {} as never } }),
          'plugin "p4": a store provider named "kv" is already registered on this app',
        ],
        [() => registry.addStrategy("fast", noop), 'a strategy named "fast" is already registered on this app'],
      ];
      for (const [register, message] of refusals) expect(register).toThrow(message);
      expect([...registry.plugins.keys()]).toEqual(["store"]);
      expect([...registry.strategies.keys()]).toEqual(["own"]);
    });
  });
});

describe("app.ts, the authoring facade over the registry", () => {
  it("should read what its registry holds through the same maps tool modules read", () => {
    const app = new App();
    const heard: number[] = [];
    app.onChange(() => heard.push(app.tools.size));
    app.tool(
      { name: "greet", description: "Greets.", input: z.object({ name: z.string() }) },
      ({ name }) => `hi ${name}`,
    );
    app.retryPolicy("greet_preset", { maxAttempts: 2, idempotent: true });
    expect(app.tools.get("greet")).toMatchObject({ name: "greet", module: "inline" });
    expect(app.policies.has("greet_preset")).toBe(true);
    expect(heard).toEqual([1, 1]);
  });

  it("should check a declaration before the registry sees it: a malformed one registers nothing and notifies no one", () => {
    const app = new App();
    let heard = 0;
    app.onChange(() => heard++);
    expect(() => app.strategy("not a name", async function* () {})).toThrow("must match");
    expect(() => app.tool({ name: "t" } as never)).toThrow("defineTool returned");
    expect([app.tools.size, app.strategies.size, heard]).toEqual([0, 0, 0]);
  });
});
