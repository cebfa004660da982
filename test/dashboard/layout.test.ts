import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id } }`;

/** The widths the dashboard is checked at: a phone (390 px) and a tablet (1024 px). */
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1024, height: 768 },
] as const;

/** Every screen (and a detail of each kind), with what shows once it has loaded. */
function screens(runId: string): { name: string; path: string; ready: string; tab?: string }[] {
  return [
    { name: "tools", path: "#/tools", ready: "[data-testid=tool-list] [data-tool=calculate]" },
    { name: "tool-detail", path: "#/tools/calculate", ready: "form" },
    { name: "runs", path: "#/runs", ready: `tr[data-run="${runId}"]` },
    { name: "run-detail", path: `#/runs/${runId}`, ready: "[data-testid=run-detail]" },
    { name: "spans", path: "#/spans", ready: "text=No spans yet" },
    { name: "interactions", path: "#/interactions", ready: "text=No pending interaction" },
    { name: "agents", path: "#/agents", ready: "[aria-label='Agent tools']" },
    { name: "composition", path: "#/composition", ready: "text=No preset yet" },
    { name: "manifests", path: "#/composition", tab: "Manifests", ready: "[aria-label=Manifests]" },
    {
      name: "catalog",
      path: "#/composition",
      tab: "Extension catalog",
      ready: "[aria-label=Extensions] [data-extension]",
    },
    { name: "connectors", path: "#/connectors", ready: "text=No connector yet" },
    { name: "schedules", path: "#/schedules", ready: "text=No schedule yet" },
  ];
}

/** How much wider than the viewport the page is (0: no horizontal page scroll). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe.skipIf(!present)("the dashboard at phone and tablet widths, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should fit every screen at 390 px and 1024 px with no horizontal page scroll, saving a screenshot of each", async () => {
    const server = await suite.serve();
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const run = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "echo", input: { text: "hello" } }))
      .data!.dispatch;
    const dash = await suite.open("/dashboard");
    const { page } = dash;
    await page.evaluate((key) => sessionStorage.setItem("tai42.apiKey", key), admin);
    await page.reload();
    const wide: Record<string, number> = {};
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      for (const s of screens(run.id)) {
        await page.goto(`${server.origin}/dashboard${s.path}`);
        await page.getByTestId("viewer-role").filter({ hasText: "ADMIN" }).waitFor();
        if (s.tab) await page.getByRole("tab", { name: s.tab, exact: true }).click();
        await page.locator(s.ready).first().waitFor();
        await dash.screenshot(`layout-${size.width}-${s.name}`);
        wide[`${size.width} ${s.name}`] = await overflow(page);
      }
    }
    expect(Object.entries(wide).filter(([, px]) => px > 0)).toEqual([]);
    dash.expectClean();
  });

  it("should fold the navigation behind a Menu button at phone width, each screen reachable from it", async () => {
    await suite.serve();
    const dash = await suite.open("/dashboard#/tools");
    const { page } = dash;
    await page.setViewportSize({ width: 390, height: 844 });
    const nav = page.getByRole("navigation", { name: "Screens" });
    await expect(nav.isVisible()).resolves.toBe(false);
    const menu = page.getByRole("button", { name: "Menu" });
    await menu.click();
    await expect(menu.getAttribute("aria-expanded")).resolves.toBe("true");
    await dash.screenshot("layout-390-menu");
    await nav.getByRole("link", { name: "Runs" }).click();
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    await expect(nav.isVisible()).resolves.toBe(false);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1024, height: 768 });
    await expect(nav.isVisible()).resolves.toBe(true);
    await expect(menu.isVisible()).resolves.toBe(false);
    dash.expectClean();
  });

  it("should keep a conversation and its approval card usable at 390 px, the decision buttons in sight", async () => {
    await suite.serve();
    const dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel("Message", { exact: true }).fill("Remember colour is blue");
    await page.getByRole("button", { name: "Send" }).click();
    const interrupt = page.getByTestId("interrupt");
    await interrupt.waitFor();
    const approve = interrupt.getByRole("button", { name: "Approve" });
    await approve.scrollIntoViewIfNeeded();
    const box = (await approve.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await dash.screenshot("layout-390-agents-interrupt");
    await approve.click();
    await interrupt.and(page.locator("[data-decided=yes]")).waitFor();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await dash.screenshot("layout-390-agents-decided");
    dash.expectClean();
  });
});
