import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { KindCatalog } from "../../src/connectors/kind-catalog.ts";
import { PluginCatalog } from "../../src/plugins/plugin-catalog.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";

describe("connector kinds from plugins", () => {
  it("lists a plugin's kind beside the built-ins, by its name", () => {
    const app = new App();
    const fake = fakeKinds("fake");
    app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
    const kinds = new KindCatalog(new PluginCatalog(() => [app]));
    expect(kinds.get("fake")).toBe(fake.kind);
    expect(kinds.names()).toContain("fake");
  });

  it("refuses a second plugin taking a kind name another plugin registered", () => {
    const app = new App();
    app.plugin({ name: "first", connectors: { fake: fakeKinds("fake").kind } });
    expect(() => app.plugin({ name: "second", connectors: { fake: fakeKinds("fake").kind } })).toThrow(
      /connector kind named "fake" is already registered/,
    );
    expect([...app.plugins.keys()]).toEqual(["first"]);
  });

  it("refuses a kind whose record key differs from its name, and a malformed kind", () => {
    const app = new App();
    expect(() => app.plugin({ name: "p", connectors: { other: fakeKinds("fake").kind } })).toThrow(
      /connectors\.other\.name must equal its key "other"/,
    );
    expect(() => app.plugin({ name: "q", connectors: { bad: { name: "bad" } as never } })).toThrow(/plugin "q"/);
    expect(() => app.plugin({ name: "r", connectors: { Upper: fakeKinds("Upper").kind } })).toThrow(
      /connectors\.Upper/,
    );
    expect(app.plugins.size).toBe(0);
  });
});
