import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { fakeKinds, fakeTool } from "../fixtures/connector-kinds.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { as } from "../helpers/runtime.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();

/** Enters an API key in the page's key field, as a person would. */
async function useKey(page: Page, key: string, role: string) {
  await page.getByRole("button", { name: "Enter API key" }).click();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
}

/** The tools table's row of a surface name. */
const row = (page: Page, tool: string) => page.getByTestId("connector-tools").locator(`tr[data-tool="${tool}"]`);

describe.skipIf(!present)("the dashboard's connectors screen, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("lets an ADMIN add a connector, assign a tier, refresh a changed upstream and see the diff, then delete it", async () => {
    const fake = fakeKinds();
    const app = new App();
    app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
    const server = await suite.serve({ app });
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const dash = await suite.open("/dashboard#/connectors");
    const { page } = dash;
    await useKey(page, admin, "ADMIN");
    await page.getByText("No connector yet").first().waitFor();

    // A literal secret is refused at its path; the form keeps what was typed.
    await page.getByRole("button", { name: "Add connector" }).click();
    await page.getByLabel("Connector name").fill("acme");
    await page.getByLabel("Connector kind").fill("fake");
    await page.getByLabel("Connector description").fill("The acme upstream.");
    await page.locator("#connector-settings").fill(JSON.stringify({ upstream: "u1", token: "a-literal-token" }));
    const editor = page.getByRole("region", { name: "Connector editor" });
    await editor.getByRole("button", { name: "Add connector" }).click();
    await editor.locator('[data-issue-path="/settings/token"]').waitFor();
    expect(await page.getByLabel("Connector name").inputValue()).toBe("acme");
    expect(await page.getByLabel("Connector description").inputValue()).toBe("The acme upstream.");
    expect(await server.rt.connectors.list(as("ADMIN"))).toEqual([]);

    await page.locator("#connector-settings").fill(JSON.stringify({ upstream: "u1" }));
    await editor.getByRole("button", { name: "Add connector" }).click();
    const detail = page.getByTestId("connector-detail");
    await detail.and(page.locator('[data-connector="acme"]')).waitFor();
    await expect(
      page.locator('[data-connector="acme"] [data-testid=connector-summary]').innerText(),
    ).resolves.toContain("2 tools · listing v1");

    // Each tool with what the upstream proposes and what applies (the proposal, until assigned).
    await expect(row(page, "acme_echo").getByTestId("proposed-tier").innerText()).resolves.toBe("read");
    await expect(row(page, "acme_write_thing").getByTestId("proposed-tier").innerText()).resolves.toBe("write");
    await expect(page.getByLabel("tier of acme_write_thing").inputValue()).resolves.toBe("");
    await expect(row(page, "acme_write_thing").getAttribute("data-assigned")).resolves.toBe("no");

    await page.getByLabel("tier of acme_write_thing").selectOption("FENCED");
    await row(page, "acme_write_thing").and(page.locator('[data-assigned="yes"][data-tier="FENCED"]')).waitFor();
    const stored = await server.rt.connectors.get(as("ADMIN"), "acme");
    expect(stored?.decisions).toEqual({ write_thing: { tier: "fenced" } });
    expect(stored?.version).toBe(2);
    await dash.screenshot("connectors-tools");

    // The upstream changes behind tai42's back: Refresh shows what changed.
    fake.upstream("u1").tools = [fakeTool("echo", "read", { description: "the new echo" }), fakeTool("search", "read")];
    await detail.getByRole("button", { name: "Refresh", exact: true }).click();
    const result = page.getByTestId("refresh-result");
    await expect(result.getByTestId("change-added").innerText()).resolves.toContain("acme_search");
    await expect(result.getByTestId("change-removed").innerText()).resolves.toContain("acme_write_thing");
    await expect(result.getByTestId("change-changed").innerText()).resolves.toMatch(/acme_echo: description/);
    await row(page, "acme_search").waitFor();
    expect(await row(page, "acme_write_thing").count()).toBe(0);
    await page.getByTestId("connector-changes").locator('[data-listing-version="2"]').waitFor();
    await dash.screenshot("connectors-refreshed");

    await detail.getByRole("button", { name: "Refresh", exact: true }).click();
    await result.filter({ hasText: "No change" }).waitFor();

    await detail.getByRole("button", { name: "Delete", exact: true }).click();
    await page
      .getByRole("alertdialog", { name: "Confirm delete" })
      .getByRole("button", { name: "Delete acme" })
      .click();
    await page.getByText("No connector yet").first().waitFor();
    expect(await server.rt.connectors.get(as("ADMIN"), "acme")).toBeNull();
    dash.expectClean();
  });
});
