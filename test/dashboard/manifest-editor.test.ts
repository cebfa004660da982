import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite, type DashboardPage } from "./browser.ts";
import type { TestServer } from "./server.ts";

const present = await chromiumPresent();
const PUT = `mutation($input: ManifestInput!, $v: Int) { putManifest(input: $input, expectedVersion: $v) { name version } }`;

/** Enters an API key in the page's key field, as a person would. */
async function useKey(page: Page, key: string, role: string) {
  await page.getByRole("button", { name: "Enter API key" }).click();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
}

describe.skipIf(!present)("the dashboard's manifest editor, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let dash: DashboardPage;
  let admin: string;

  async function manifestsAsAdmin() {
    server = await suite.serve();
    admin = await server.rt.keys.create("ops", "ADMIN");
    dash = await suite.open("/dashboard#/composition");
    await useKey(dash.page, admin, "ADMIN");
    await dash.page.getByRole("tab", { name: "Manifests" }).click();
    return dash.page;
  }

  it("should create a manifest typed as YAML: a parse error by line and column, the server's issues at their paths, then JSON and a save", async () => {
    const page = await manifestsAsAdmin();
    await page.getByRole("button", { name: "New manifest" }).click();
    const editor = page.getByRole("region", { name: "Manifest editor" });
    const text = editor.getByLabel("Manifest text");
    await expect(text.inputValue()).resolves.toContain("name: my-manifest");

    await text.fill("name: nightly\ntools:\n  include: [echo, calculate\n");
    await expect(editor.getByTestId("parse-state").innerText()).resolves.toBe(
      "Line 4, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]",
    );
    await expect(editor.getByRole("button", { name: "Create manifest" }).isDisabled()).resolves.toBe(true);
    await expect(editor.getByRole("radio", { name: "JSON" }).isDisabled()).resolves.toBe(true);
    await dash.screenshot("manifest-editor-parse-error");

    // It parses; the server refuses a tool it does not know, at the file's own path.
    await text.fill("name: nightly\ndescription: Echo and sums.\ntools:\n  include: [echo, no_such_tool]\n");
    await editor.getByTestId("parse-state").filter({ hasText: "Parses as YAML: nightly." }).waitFor();
    await editor.getByRole("button", { name: "Create manifest" }).click();
    const issue = editor.getByTestId("issues").locator('[data-issue-path="/tools/include/1"]');
    await expect(issue.innerText()).resolves.toBe('/tools/include/1 unknown tool "no_such_tool"');
    await dash.screenshot("manifest-editor-issues");
    expect(await server.rt.manifests.get("nightly")).toBeNull();

    // Switched to JSON, the same manifest; fixed there and saved.
    await text.fill("name: nightly\ndescription: Echo and sums.\ntools:\n  include: [echo, calculate]\n");
    await editor.getByRole("radio", { name: "JSON" }).check();
    const json = JSON.parse(await text.inputValue());
    expect(json).toEqual({ name: "nightly", description: "Echo and sums.", tools: { include: ["echo", "calculate"] } });
    await text.fill('{\n  "name": "nightly",\n  "tools": }\n');
    await editor.getByTestId("parse-state").filter({ hasText: "Line 3, column 12: a value was expected" }).waitFor();
    await text.fill(JSON.stringify({ ...json, tools: { include: ["echo", "calculate", "clock"] } }, null, 2));
    await editor.getByTestId("parse-state").filter({ hasText: "Parses as JSON" }).waitFor();
    await editor.getByRole("button", { name: "Create manifest" }).click();
    await page.locator("[data-manifest=nightly]").getByText("v1").waitFor();
    expect(await server.rt.manifests.get("nightly")).toMatchObject({
      version: 1,
      active: false,
      document: { tools: { include: ["echo", "calculate", "clock"] } },
    });

    // A copy is a new manifest under a new name; the original stays as it was.
    await page.getByRole("region", { name: "Manifest nightly" }).getByRole("button", { name: "Copy" }).click();
    await expect(text.inputValue()).resolves.toMatch(/^name: nightly-copy\ndescription: Echo and sums\.\n/);
    await editor.getByRole("button", { name: "Create manifest" }).click();
    await page.locator("[data-manifest=nightly-copy]").getByText("v1").waitFor();
    expect(await server.rt.manifests.get("nightly")).toMatchObject({ version: 1 });

    // A new manifest under a name that exists is refused in words, not as a path the text does not have.
    await page.getByRole("button", { name: "New manifest" }).click();
    await text.fill("name: nightly\ntools:\n  include: [echo]\n");
    await editor.getByRole("button", { name: "Create manifest" }).click();
    await editor.getByRole("alert").filter({ hasText: "A manifest named nightly exists already" }).waitFor();
    expect(await editor.getByTestId("issues").locator("[data-issue-path]").count()).toBe(0);
    expect(await server.rt.manifests.get("nightly")).toMatchObject({
      version: 1,
      document: { tools: { include: ["echo", "calculate", "clock"] } },
    });
    dash.expectClean();
  });

  it("should save an edit as a new version, refuse a stale one as a conflict, and show the diff against the active manifest before activating", async () => {
    const page = await manifestsAsAdmin();
    for (const [name, include] of [
      ["live", ["echo", "calculate"]],
      ["next", ["echo"]],
    ] as const) {
      const put = await server.gql(PUT, { input: { name, document: { tools: { include } } } }, admin);
      expect(put.errors).toBeUndefined();
    }
    expect(
      (await server.gql(`mutation { activateManifest(name: "live") { active } }`, {}, admin)).errors,
    ).toBeUndefined();
    await page.reload();
    await page.getByRole("tab", { name: "Manifests" }).click();

    await page.locator("[data-manifest=next]").click();
    const view = page.getByRole("region", { name: "Manifest next" });
    await view.getByRole("button", { name: "Edit" }).click();
    const editor = page.getByRole("region", { name: "Manifest editor" });
    await expect(editor.getByLabel("Manifest text").inputValue()).resolves.toBe(
      "name: next\ntools:\n  include:\n    - echo\n",
    );
    await editor
      .getByLabel("Manifest text")
      .fill("name: next\ntools:\n  include: [echo, clock]\nextensions:\n  echo: [monitor]\n");
    await editor.getByRole("button", { name: "Save as version 2" }).click();
    await page.locator("[data-manifest=next]").getByText("v2").waitFor();

    // Someone saves version 3 while this editor holds version 2: refused, not overwritten.
    await view.getByRole("button", { name: "Edit" }).click();
    const other = await server.gql(
      PUT,
      { input: { name: "next", document: { tools: { include: ["echo", "clock"] } } }, v: 2 },
      admin,
    );
    expect(other.errors).toBeUndefined();
    await editor.getByLabel("Manifest text").fill("name: next\ntools:\n  include: [echo]\n");
    await editor.getByRole("button", { name: "Save as version 3" }).click();
    await editor
      .getByRole("alert")
      .filter({ hasText: "someone saved next since this editor opened version 2" })
      .waitFor();
    await dash.screenshot("manifest-editor-conflict");
    expect(await server.rt.manifests.get("next")).toMatchObject({ version: 3 });
    await editor.getByRole("button", { name: "Cancel" }).click();
    await page.locator("[data-manifest=next]").getByText("v3").waitFor();

    // Activating shows what changes against "live" first.
    await view.getByRole("button", { name: "Activate", exact: true }).click();
    const ask = page.getByRole("alertdialog", { name: "Confirm activation" });
    const diff = ask.getByTestId("manifest-diff");
    await expect(diff.locator("li").allInnerTexts()).resolves.toEqual([
      "+ adds clock in tools.include",
      "- removes calculate in tools.include",
    ]);
    await expect(diff.getByLabel("Line diff").innerText()).resolves.toBe(
      "  tools:\n    include:\n      - echo\n-     - calculate\n+     - clock",
    );
    await dash.screenshot("manifest-activate-diff");
    await ask.getByRole("button", { name: "Activate next" }).click();
    await page.locator("[data-manifest=next]").getByText("active").waitFor();
    expect(await server.rt.manifests.get("next")).toMatchObject({ active: true, version: 3 });
    dash.expectClean();
  });

  it("should show the diff of a new version of the active manifest, which changes the live surface, before saving it", async () => {
    const page = await manifestsAsAdmin();
    const put = await server.gql(PUT, { input: { name: "live", document: { tools: { include: ["echo"] } } } }, admin);
    expect(put.errors).toBeUndefined();
    const on = await server.gql(`mutation { activateManifest(name: "live") { active } }`, {}, admin);
    expect(on.errors).toBeUndefined();
    await page.reload();
    await page.getByRole("tab", { name: "Manifests" }).click();
    await page.getByRole("region", { name: "Manifest live" }).getByRole("button", { name: "Edit" }).click();
    const editor = page.getByRole("region", { name: "Manifest editor" });
    await editor.getByLabel("Manifest text").fill("name: live\ntools:\n  include: [echo, clock]\n");
    await editor.getByRole("button", { name: "Save as version 2" }).click();
    const ask = editor.getByRole("alertdialog", { name: "Confirm saving the active manifest" });
    await expect(ask.getByTestId("manifest-diff").locator("li").allInnerTexts()).resolves.toEqual([
      "+ adds clock in tools.include",
    ]);
    expect(await server.rt.manifests.get("live")).toMatchObject({ version: 1 });
    await dash.screenshot("manifest-editor-active-diff");
    await editor.getByRole("button", { name: "Save version 2 and apply it" }).click();
    await page.locator("[data-manifest=live]").getByText("v2").waitFor();
    expect(await server.rt.manifests.get("live")).toMatchObject({
      version: 2,
      active: true,
      document: { tools: { include: ["echo", "clock"] } },
    });
    dash.expectClean();
  });

  it("should offer a USER or READER no editor, and the server should refuse their putManifest anyway", async () => {
    server = await suite.serve();
    admin = await server.rt.keys.create("ops", "ADMIN");
    const put = await server.gql(PUT, { input: { name: "kept", document: {} } }, admin);
    expect(put.errors).toBeUndefined();
    dash = await suite.open("/dashboard#/composition");
    const { page } = dash;
    for (const role of ["USER", "READER"] as const) {
      const key = await server.rt.keys.create(role.toLowerCase(), role);
      if (role === "USER") await useKey(page, key, role);
      else {
        await page.getByRole("button", { name: "Change key" }).click();
        await page.getByLabel("API key").fill(key);
        await page.getByRole("button", { name: "Use key" }).click();
        await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
      }
      await page.getByTestId("forbidden-note").filter({ hasText: "Composition is for ADMIN keys" }).waitFor();
      for (const name of ["New manifest", "Edit", "Copy", "Create manifest"])
        expect(await page.getByRole("button", { name }).count(), `${role}: ${name}`).toBe(0);
      expect(await page.getByLabel("Manifest text").count()).toBe(0);
      const refused = await server.gql(
        PUT,
        { input: { name: "kept", document: { tools: { include: ["echo"] } } }, v: 1 },
        key,
      );
      expect(refused.errors?.[0]?.extensions?.code, role).toBe("FORBIDDEN");
    }
    expect(await server.rt.manifests.get("kept")).toMatchObject({ version: 1, document: {} });
    await dash.screenshot("manifest-editor-forbidden");
    dash.expectClean();
  });
});
