import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite, type DashboardPage } from "./browser.ts";
import type { TestServer } from "./server.ts";

const present = await chromiumPresent();
const PUT_MANIFEST = `mutation($input: ManifestInput!) { putManifest(input: $input) { name version } }`;
const UPDATE_PRESET = `mutation($input: PresetInput!, $v: Int!) { updatePreset(name: "power", input: $input, expectedVersion: $v) { version } }`;

/** Enters an API key in the page's key field, as a person would. */
async function useKey(page: Page, key: string, role: string) {
  await page.getByRole("button", { name: "Enter API key" }).click();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
}

describe.skipIf(!present)("the dashboard's composition screen and roles, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let dash: DashboardPage;
  let admin: string;

  beforeAll(() => {
    process.env.DASH_LABEL = "nightly";
    process.env.DEMO_GREETING = "hello from the environment";
  });
  afterAll(() => {
    delete process.env.DASH_LABEL;
    delete process.env.DEMO_GREETING;
  });

  async function asAdmin(path: string) {
    server = await suite.serve();
    admin = await server.rt.keys.create("ops", "ADMIN");
    dash = await suite.open(path);
    await useKey(dash.page, admin, "ADMIN");
    return dash.page;
  }

  it("should keep the key in sessionStorage only, show the ADMIN role, and create then edit a preset with expectedVersion", async () => {
    const page = await asAdmin("/dashboard#/composition");
    expect(await page.evaluate(() => [sessionStorage.getItem("tai42.apiKey"), localStorage.length])).toEqual([
      admin,
      0,
    ]);

    await page.getByRole("button", { name: "New preset" }).click();
    await page.getByLabel("Preset name").fill("power");
    await page.getByLabel("Preset description").fill("Raise a to the power b.");
    await page.getByLabel("Base tool").selectOption("calculate");
    await page.getByLabel("op").selectOption("power");
    await page.getByRole("button", { name: "Create preset" }).click();
    const item = page.locator("[data-preset=power]");
    await expect(item.innerText()).resolves.toMatch(/v1[\s\S]*"power"/);

    await item.click();
    await page.getByLabel("Preset description").fill("Powers, version two.");
    await page.getByRole("button", { name: "Save as version 2" }).click();
    await item.getByText("v2").waitFor();

    // Someone else saves version 3 while this editor still holds version 2: the save is refused, not lost.
    await item.click();
    const other = await server.gql(
      UPDATE_PRESET,
      {
        v: 2,
        input: { name: "power", description: "Elsewhere.", baseTool: "calculate", fixedKwargs: { op: "power" } },
      },
      admin,
    );
    expect(other.errors).toBeUndefined();
    await page.getByRole("button", { name: "Save as version 3" }).click();
    await page.getByRole("alert").filter({ hasText: "someone saved it since this editor opened version 2" }).waitFor();
    await dash.screenshot("composition-presets");
    dash.expectClean();
  });

  it("should show !ENV settings sealed by their variable name, never their value", async () => {
    server = await suite.serve();
    admin = await server.rt.keys.create("ops", "ADMIN");
    const created = await server.gql(
      `mutation { createPreset(input: { name: "greet", description: "Greets.", baseTool: "echo", fixedKwargs: { text: "!ENV DEMO_GREETING" } }) { name } }`,
      {},
      admin,
    );
    expect(created.errors).toBeUndefined();
    const put = await server.gql(
      PUT_MANIFEST,
      {
        input: {
          name: "labelled",
          document: {
            extensionsModules: ["tai42/contrib"],
            extensions: { echo: [{ name: "label", config: { label: "!ENV DASH_LABEL" } }] },
          },
        },
      },
      admin,
    );
    expect(put.errors).toBeUndefined();
    dash = await suite.open("/dashboard#/composition");
    const { page } = dash;
    await useKey(page, admin, "ADMIN");
    await expect(page.locator("[data-preset=greet] .sealed").innerText()).resolves.toContain("env DEMO_GREETING");
    await page.getByRole("tab", { name: "Manifests" }).click();
    await expect(
      page.getByRole("region", { name: "Manifest labelled" }).locator(".sealed").innerText(),
    ).resolves.toContain("env DASH_LABEL");
    await page.getByRole("tab", { name: "Extension catalog" }).click();
    await page.locator("[data-extension=label]").click();
    await expect(
      page.getByRole("region", { name: "Extension label" }).locator(".sealed").innerText(),
    ).resolves.toContain("env DASH_LABEL");
    const text = await page.locator("body").innerText();
    expect(text).not.toContain("nightly");
    expect(text).not.toContain("hello from the environment");
    await dash.screenshot("composition-extensions");
    dash.expectClean();
  });

  it("should activate a manifest, see the surface change live, and watch the monitored branch's spans", async () => {
    const page = await asAdmin("/dashboard#/composition");
    const put = await server.gql(
      PUT_MANIFEST,
      { input: { name: "monitored", description: "Trace echo.", document: { extensions: { echo: ["monitor"] } } } },
      admin,
    );
    expect(put.errors).toBeUndefined();
    await page.getByRole("tab", { name: "Manifests" }).click();
    await page.locator("[data-manifest=monitored]").click();
    // Activation asks first: keeping the current surface changes nothing.
    await page.getByRole("button", { name: "Activate", exact: true }).click();
    const ask = page.getByRole("alertdialog", { name: "Confirm activation" });
    await expect(ask.innerText()).resolves.toContain("Activate monitored v1? It replaces the whole registered surface");
    await ask.getByRole("button", { name: "Keep the current surface" }).click();
    await ask.waitFor({ state: "detached" });
    expect(await server.rt.manifests.get("monitored")).toMatchObject({ active: false });
    await page.getByRole("button", { name: "Activate", exact: true }).click();
    await ask.getByRole("button", { name: "Activate monitored" }).click();
    await page.locator("[data-manifest=monitored]").getByText("active").waitFor();
    await dash.screenshot("composition-manifests");

    await page.getByRole("link", { name: "Tools" }).click();
    await page.locator('a[data-tool="echo_monitor"]').click();
    await page.getByLabel("text").fill("traced");
    await page.getByRole("button", { name: "Run" }).click();
    const outcome = page.getByTestId("run-outcome");
    await outcome.locator("[data-status=SUCCEEDED]").waitFor();
    const runHref = await outcome.locator("a[href^='#/runs/']").getAttribute("href");

    await page.getByRole("link", { name: "Spans" }).click();
    const span = page.getByTestId("span-table").locator("tr[data-status=SUCCEEDED]");
    await span.locator(`a[href="${runHref}"]`).waitFor();
    await expect(span.innerText()).resolves.toContain("echo");
    await dash.screenshot("spans");
    dash.expectClean();
  });

  it("should attach an extension with settings drawn from its configSchema", async () => {
    const page = await asAdmin("/dashboard#/composition");
    await server.gql(
      PUT_MANIFEST,
      { input: { name: "with-contrib", document: { extensionsModules: ["tai42/contrib"] } } },
      admin,
    );
    await server.gql(`mutation { activateManifest(name: "with-contrib") { active } }`, {}, admin);
    await page.getByRole("tab", { name: "Extension catalog" }).click();
    await page.locator("[data-extension=label]").click();
    await page.getByLabel("Tool to attach to").selectOption("calculate");
    await page.getByRole("region", { name: "Attach" }).getByLabel("label").fill("nightly");
    await page.getByRole("button", { name: "Attach" }).click();
    await page.getByText("Saved with-contrib version 2.").waitFor();
    await page.getByRole("link", { name: "Tools" }).click();
    await page.locator('a[data-tool="calculate_label"]').waitFor();
    dash.expectClean();
  });

  it("should ask for a key where anonymous callers have no access, and refuse a wrong key by name", async () => {
    server = await suite.serve({ config: { anonymousRole: "NONE" } });
    dash = await suite.open("/dashboard");
    const { page } = dash;
    await page.getByTestId("forbidden-note").filter({ hasText: "anonymous callers no access" }).waitFor();
    await page.getByRole("button", { name: "Enter API key" }).click();
    await page.getByLabel("API key").fill("not-a-key-of-this-server");
    await page.getByRole("button", { name: "Use key" }).click();
    await page.getByText("key refused").waitFor();
    await page
      .getByRole("alert")
      .filter({ hasText: "The server refused the key: UNAUTHENTICATED: the API key is unknown or revoked" })
      .waitFor();
    const user = await server.rt.keys.create("dev", "USER");
    await page.getByRole("button", { name: "Change key" }).click();
    await page.getByLabel("API key").fill(user);
    await page.getByRole("button", { name: "Use key" }).click();
    await page.getByTestId("viewer-role").filter({ hasText: "USER" }).waitFor();
    await page.getByTestId("tool-list").locator('a[data-tool="echo"]').waitFor();
    expect(await page.getByText("anonymous callers no access").count()).toBe(0);
    dash.expectClean();
  });

  it("should give a new tab of the dashboard the key an open tab uses, and leave a tab whose key was forgotten without one", async () => {
    const page = await asAdmin("/dashboard#/runs");
    const origin = new URL(page.url()).origin;
    const second = await dash.context.newPage();
    await second.goto(`${origin}/dashboard#/tools`);
    await second.getByTestId("viewer").filter({ hasText: "key ops" }).waitFor();
    await second.getByRole("button", { name: "Forget key" }).click();
    await second.getByTestId("viewer").filter({ hasText: "anonymous" }).waitFor();
    // A third tab asks: the first answers; the second, which forgot its key, takes none.
    const third = await dash.context.newPage();
    await third.goto(`${origin}/dashboard#/tools`);
    await third.getByTestId("viewer").filter({ hasText: "key ops" }).waitFor();
    await expect(second.getByTestId("viewer").innerText()).resolves.toContain("anonymous");
    expect(await second.evaluate(() => sessionStorage.getItem("tai42.apiKey"))).toBeNull();
    expect(await third.evaluate(() => localStorage.length)).toBe(0);
    dash.expectClean();
  });

  it("should hide composition actions from a non-ADMIN key and explain why", async () => {
    server = await suite.serve();
    const user = await server.rt.keys.create("dev", "USER");
    dash = await suite.open("/dashboard#/composition");
    const { page } = dash;
    await useKey(page, user, "USER");
    await page.getByTestId("forbidden-note").filter({ hasText: "Composition is for ADMIN keys" }).waitFor();
    for (const action of ["New preset", "Activate", "Attach"])
      expect(await page.getByRole("button", { name: action }).count(), action).toBe(0);
    expect(await page.getByRole("tab").count()).toBe(0);
    await dash.screenshot("composition-forbidden");

    // A READER sees a write tool, but no form to run it.
    const reader = await server.rt.keys.create("audit", "READER");
    await page.getByRole("button", { name: "Change key" }).click();
    await page.getByLabel("API key").fill(reader);
    await page.getByRole("button", { name: "Use key" }).click();
    await page.getByTestId("viewer-role").filter({ hasText: "READER" }).waitFor();
    await page.goto(`${server.origin}/dashboard#/tools/kv_put`);
    await page
      .getByTestId("forbidden-note")
      .filter({ hasText: "Your role (READER) may not run write tools" })
      .waitFor();
    expect(await page.getByRole("button", { name: "Run" }).count()).toBe(0);
    dash.expectClean();
  });
});
