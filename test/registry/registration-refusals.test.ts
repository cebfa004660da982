import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import {
  DefinitionError as PublicDefinitionError,
  PluginDefinitionError,
  ToolDefinitionError,
} from "../../src/index.ts";
import { assertModulesAllowed, CONTRIB } from "../../src/manifests/module-allow-list.ts";
import { Registry } from "../../src/registry/registry.ts";
import { resolvePolicy } from "../../src/retry/policy.ts";
import { definitionRefusal } from "../helpers/refusals.ts";

import { extension, Helper, tool } from "./fixtures.ts";

const noop = async function* () {};

describe("a refused registration is a DefinitionError naming its rule and the offending path", () => {
  it("should refuse a taken tool name with tool.duplicate-name at /name", () => {
    const registry = new Registry();
    registry.addTool(tool("lookup"));
    const e = definitionRefusal(() => registry.addTool(tool("lookup")));
    expect(e).toMatchObject({
      rule: "tool.duplicate-name",
      subject: "lookup",
      issues: [{ path: "/name", message: "is already registered (module-lookup)" }],
    });
    expect(e.message).toBe('defineTool [duplicate-name]: a tool named "lookup" is already registered (module-lookup)');
  });

  it("should refuse a tool named like a registered agent, as an agent named like a tool is refused", () => {
    const registry = new Registry();
    registry.addAgent(Helper);
    const e = definitionRefusal(() => registry.addTool(tool("helper")));
    expect(e).toMatchObject({
      rule: "tool.duplicate-name",
      subject: "helper",
      issues: [{ path: "/name", message: "is already registered (an agent)" }],
    });
    expect(registry.tools.has("helper")).toBe(false);
  });

  it("should refuse a second retry policy on a name with retry.duplicate-name", () => {
    const registry = new Registry();
    registry.declarePolicy("lookup", resolvePolicy("lookup", { maxAttempts: 2, idempotent: true }));
    expect(
      definitionRefusal(() => registry.addTool(tool("lookup", { retry: { maxAttempts: 3, idempotent: true } }))),
    ).toMatchObject({
      rule: "retry.duplicate-name",
      subject: "lookup",
    });
  });

  it("should refuse a taken agent name with agent.duplicate-name at /toolName", () => {
    const registry = new Registry();
    registry.addTool(tool("helper"));
    expect(definitionRefusal(() => registry.addAgent(Helper))).toMatchObject({
      rule: "agent.duplicate-name",
      subject: "helper",
      issues: [{ path: "/toolName" }],
    });
  });

  it("should refuse a taken extension or extension tool name, at the path of the name in the extension", () => {
    const registry = new Registry();
    registry.addExtension(extension("first"));
    registry.addTool(tool("taken"));
    registry.declarePolicy("declared", resolvePolicy("declared", { maxAttempts: 2, idempotent: true }));
    expect(definitionRefusal(() => registry.addExtension(extension("first")))).toMatchObject({
      rule: "extension.duplicate-name",
      subject: "first",
      issues: [{ path: "/name" }],
    });
    const ok = { description: "Free.", parameters: { type: "object" }, execute: () => 1 };
    const taken = definitionRefusal(() =>
      registry.addExtension(
        extension("second", [
          { name: "free", ...ok },
          { name: "taken", ...ok },
        ]),
      ),
    );
    expect(taken).toMatchObject({
      rule: "extension.duplicate-name",
      subject: "second",
      issues: [{ path: "/tools/1/name", message: "is already registered (module-taken)" }],
    });
    expect(taken.message).toBe('app.extension: "second": its tool "taken" is already registered (module-taken)');
    const policy = definitionRefusal(() =>
      registry.addExtension(
        extension("third", [{ name: "declared", ...ok, retry: { maxAttempts: 2, idempotent: true } }]),
      ),
    );
    expect(policy).toMatchObject({ rule: "extension.duplicate-policy", issues: [{ path: "/tools/0/retry" }] });
  });

  it("should refuse a taken plugin, strategy or provider name with plugin.duplicate-name at its path", () => {
    const registry = new Registry();
    registry.addPlugin({ name: "store", strategies: { own: noop }, storeProviders: { kv: {} as never } });
    expect(definitionRefusal(() => registry.addPlugin({ name: "store" }))).toMatchObject({
      rule: "plugin.duplicate-name",
      issues: [{ path: "/name" }],
    });
    expect(definitionRefusal(() => registry.addPlugin({ name: "p2", strategies: { own: noop } }))).toMatchObject({
      rule: "plugin.duplicate-name",
      subject: "p2",
      issues: [{ path: "/strategies/own" }],
    });
    expect(
      definitionRefusal(() => registry.addPlugin({ name: "p3", storeProviders: { kv: {} as never } })),
    ).toMatchObject({ issues: [{ path: "/storeProviders/kv" }] });
    expect(definitionRefusal(() => registry.addStrategy("own", noop))).toMatchObject({
      rule: "plugin.duplicate-name",
      subject: "own",
      issues: [{ path: "/name" }],
    });
  });

  it("should refuse a malformed app.strategy or app.tool with its rule and path", () => {
    const app = new App();
    expect(definitionRefusal(() => app.strategy("no good", noop))).toMatchObject({
      rule: "plugin.strategy",
      issues: [{ path: "/name" }],
    });
    expect(definitionRefusal(() => app.strategy("fine", "nope" as never))).toMatchObject({
      rule: "plugin.strategy",
      subject: "fine",
      issues: [{ path: "/strategy" }],
    });
    expect(
      definitionRefusal(() => app.tool({ name: "t", description: "T.", input: { type: "object" } } as never, () => 1)),
    ).toMatchObject({
      rule: "tool.object-schema",
      issues: [{ path: "/input" }],
    });
    expect(definitionRefusal(() => app.tool({ name: "t" } as never))).toMatchObject({ rule: "tool.one-form" });
  });

  it("should refuse a manifest's module outside the allow-list with module.not-allowed, one issue per module at its index", () => {
    const e = definitionRefusal(() =>
      assertModulesAllowed([CONTRIB, "child_process", "tools/x.ts"], { modules: ["tools/y.ts"] }),
    );
    expect(e.rule).toBe("module.not-allowed");
    expect(e.issues.map((i) => i.path)).toEqual(["/1", "/2"]);
    expect(e.message).toMatch(/^module "child_process" is not allowed: .*; module "tools\/x.ts" is not allowed/);
  });

  it("should keep the deprecated public names as the same class, so instanceof still matches", () => {
    const e = definitionRefusal(() => new App().strategy("no good", noop));
    expect(ToolDefinitionError).toBe(PublicDefinitionError);
    expect(e).toBeInstanceOf(PluginDefinitionError);
    expect(e).toBeInstanceOf(ToolDefinitionError);
  });
});
