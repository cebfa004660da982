import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();

/** Enters an API key in the page's key field, as a person would. */
async function useKey(page: Page, key: string, role: string) {
  await page.getByRole("button", { name: /Enter API key|Change key/ }).click();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
}

const nav = (page: Page) => page.getByRole("navigation", { name: "Screens" });

describe.skipIf(!present)("the dashboard's schedules screen for lower roles, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should show a USER no Schedules link and, at its address, why it is refused, without asking the server, which refuses it too", async () => {
    const server = await suite.serve();
    const user = await server.rt.keys.create("alice", "USER");
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const dash = await suite.open("/dashboard#/tools");
    const { page } = dash;
    await useKey(page, user, "USER");
    await nav(page).getByRole("link", { name: "Tools" }).waitFor();
    expect(
      await nav(page)
        .getByRole("link", { name: /Schedules/ })
        .count(),
    ).toBe(0);

    const asked: string[] = [];
    page.on("request", (r) => {
      const body = r.postData() ?? "";
      if (body.includes("schedules")) asked.push(body);
    });
    await page.goto(`${server.origin}/dashboard#/schedules`);
    await page.getByTestId("forbidden-note").filter({ hasText: "Schedules are for ADMIN keys" }).waitFor();
    expect(await page.getByRole("button", { name: "Add schedule" }).count()).toBe(0);
    expect(asked).toEqual([]);
    await dash.screenshot("schedules-forbidden");

    // The server refuses the USER too, on the same API the screen uses.
    const refused = await server.gql(`{ schedules { name } }`, {}, user);
    expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(refused.data?.schedules ?? null).toBeNull();

    // The same page with an ADMIN key lists the screen.
    await useKey(page, admin, "ADMIN");
    await nav(page).getByRole("link", { name: "Schedules" }).waitFor();
    dash.expectClean();
  });
});
