import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { shapedApp } from "./modules/shaped-extension.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("the schema editor of a setting that is itself a JSON Schema, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should show meta-schema problems at their paths, preview a valid schema's form, and save it round-tripped, with no eval", async () => {
    const server = await suite.serve({ app: shapedApp() });
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const put = await server.gql(
      `mutation { putManifest(input: { name: "shapes", document: {} }) { version } }`,
      {},
      admin,
    );
    expect(put.errors).toBeUndefined();
    const dash = await suite.open("/dashboard#/composition");
    const { page } = dash;
    await page.getByRole("button", { name: "Enter API key" }).click();
    await page.getByLabel("API key").fill(admin);
    await page.getByRole("button", { name: "Use key" }).click();
    await page.getByTestId("viewer-role").filter({ hasText: "ADMIN" }).waitFor();
    await page.getByRole("tab", { name: "Extension catalog" }).click();
    await page.locator("[data-extension=shaped]").click();
    const attach = page.getByRole("region", { name: "Attach" });
    await attach.getByLabel("Tool to attach to").selectOption("echo");

    const editor = attach.getByTestId("schema-editor-config-shaped_schema");
    const text = editor.locator("textarea");
    await text.fill(
      JSON.stringify({ type: "object", properties: { city: { type: "town" }, nights: { minimum: "two" } } }),
    );
    const problems = editor.getByTestId("meta-schema-issues");
    await expect(problems.locator("li").allInnerTexts()).resolves.toEqual([
      "/properties/city/type must be a type name (null, boolean, object, array, number, integer, string) or a list of them",
      "/properties/nights/minimum must be number",
    ]);
    expect(await editor.getByRole("group", { name: "Schema preview" }).count()).toBe(0);
    // The form will not send a schema the meta-schema refuses.
    await attach.getByRole("button", { name: "Attach" }).click();
    await attach.getByText("is not a valid JSON Schema: 2 problems (listed above)").waitFor();
    await dash.screenshot("schema-editor-problems");
    expect(await server.rt.manifests.get("shapes")).toMatchObject({ version: 1 });

    // Text that is not JSON yet, in the optional setting, is not dropped to send the rest.
    const errorsText = attach.getByTestId("schema-editor-config-shaped_errors").locator("textarea");
    await text.fill(JSON.stringify({ type: "object" }));
    await editor.getByTestId("meta-schema-ok").waitFor();
    await errorsText.fill('{"type": "object", "properties": {');
    await attach.getByText("not JSON yet:").waitFor();
    await attach.getByRole("button", { name: "Attach" }).click();
    await attach.getByText("is not a valid JSON Schema: 1 problem (listed above)").waitFor();
    expect(await server.rt.manifests.get("shapes")).toMatchObject({ version: 1 });
    await errorsText.fill("");

    // A schema nested too deeply to check is a problem of the field, not an exception that replaces the form.
    await text.fill(`${'{"not":'.repeat(1500)}{}${"}".repeat(1500)}`);
    await expect(problems.locator("li").allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^\/ cannot be checked \(.*\): is it nested too deeply\?$/),
    ]);
    expect(await attach.getByText("could not be drawn").count()).toBe(0);
    expect(await errorsText.isEditable()).toBe(true);

    const schema = {
      type: "object",
      required: ["city"],
      properties: {
        city: { type: "string", title: "City", minLength: 1 },
        nights: { type: "integer", title: "Nights", minimum: 1 },
      },
    };
    await text.fill(JSON.stringify(schema, null, 2));
    await editor.getByTestId("meta-schema-ok").waitFor();
    const preview = editor.getByRole("group", { name: "Schema preview" });
    await preview.getByLabel("City").fill("Lyon");
    await preview.getByLabel("Nights").waitFor();
    await dash.screenshot("schema-editor-preview");
    await attach.getByRole("button", { name: "Attach" }).click();
    await attach.getByText("Saved shapes version 2").waitFor();

    const stored = await server.rt.manifests.get("shapes");
    expect(stored?.document.extensions).toEqual({ echo: [[{ name: "shaped", config: { schema } }]] });
    // Round trip: the manifest the dashboard reads back holds the same schema.
    await page.getByRole("tab", { name: "Manifests" }).click();
    await page.locator("[data-manifest=shapes]").click();
    await page.getByRole("region", { name: "Manifest shapes" }).getByText('"minLength"').first().waitFor();
    dash.expectClean();
  });
});
