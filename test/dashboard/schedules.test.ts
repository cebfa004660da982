import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
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

/** An app whose `beat` tool echoes its note: what a schedule ticks. */
function beatApp(): App {
  const app = new App();
  app.tool(
    { name: "beat", description: "Echoes a note.", input: z.object({ note: z.string() }) },
    ({ note }) => `beat ${note}`,
  );
  return app;
}

describe.skipIf(!present)("the dashboard's schedules screen, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should refuse a bad cron at its field storing nothing, then create a schedule that ticks, link its run, pause and delete it", async () => {
    const server = await suite.serve({ app: beatApp() });
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const dash = await suite.open("/dashboard#/schedules");
    const { page } = dash;
    await useKey(page, admin, "ADMIN");
    await page.getByText("No schedule yet").first().waitFor();

    // A bad cron and an unknown time zone are refused at their fields; the form keeps what was typed.
    await page.getByRole("button", { name: "Add schedule" }).click();
    const editor = page.getByRole("region", { name: "Schedule editor" });
    await page.getByLabel("Schedule name").fill("pulse");
    await page.getByLabel("Schedule tool").fill("beat");
    await page.getByLabel("Schedule cron").fill("every day");
    await page.getByLabel("Schedule time zone").fill("Mars/Olympus");
    await page.locator("#schedule-input").fill(JSON.stringify({ note: "n" }));
    await editor.getByRole("button", { name: "Add schedule" }).click();
    await editor.locator('[data-issue-path="/cron"]').waitFor();
    await editor.locator('[data-issue-path="/timeZone"]').waitFor();
    await editor.getByText(/BAD_USER_INPUT: schedule "pulse" refused/).waitFor();
    expect(await page.getByLabel("Schedule name").inputValue()).toBe("pulse");
    expect(await server.rt.schedules.list(as("ADMIN"))).toEqual([]);

    // An unknown tool is refused at /tool.
    await page.getByLabel("Schedule cron").fill("* * * * * *");
    await page.getByLabel("Schedule time zone").fill("Europe/Paris");
    await page.getByLabel("Schedule tool").fill("no_such_tool");
    await editor.getByRole("button", { name: "Add schedule" }).click();
    await editor.locator('[data-issue-path="/tool"]').filter({ hasText: 'no tool named "no_such_tool"' }).waitFor();
    expect(await server.rt.schedules.list(as("ADMIN"))).toEqual([]);

    // Every second: it is listed, and a tick's run appears, linked to the Runs screen.
    await page.getByLabel("Schedule tool").fill("beat");
    await editor.getByRole("button", { name: "Add schedule" }).click();
    const detail = page.getByTestId("schedule-detail").and(page.locator('[data-schedule="pulse"]'));
    await detail.waitFor();
    const item = page.getByTestId("schedule-list").locator('[data-schedule="pulse"]');
    await expect(item.getByTestId("schedule-summary").innerText()).resolves.toBe("beat · * * * * * * · Europe/Paris");
    await expect(item.getByTestId("schedule-state").innerText()).resolves.toBe("enabled");
    await expect(detail.getByTestId("schedule-next-ticks").locator("time").count()).resolves.toBe(3);
    const runLink = detail.getByTestId("schedule-last-run").locator("a[data-run]");
    await runLink.waitFor({ timeout: 15_000 });
    const runId = (await runLink.getAttribute("data-run"))!;
    const run = await server.rt.runs.get(runId);
    expect(run?.tool).toBe("beat");
    await dash.screenshot("schedules-ticking");
    await runLink.click();
    await page.waitForURL(new RegExp(`#/runs/${runId}$`));
    await page.goto(`${server.origin}/dashboard#/schedules/pulse`);

    // Pause: stored disabled with the next version, no next tick shown.
    await detail.getByRole("button", { name: "Pause" }).click();
    await item.getByTestId("schedule-state").filter({ hasText: "paused" }).waitFor();
    await detail.getByTestId("schedule-next-ticks").filter({ hasText: "none: paused" }).waitFor();
    const paused = await server.rt.schedules.get(as("ADMIN"), "pulse");
    expect(paused).toMatchObject({ enabled: false, version: 2, nextTickAt: null });

    // Edit keeps it paused and changes the cron.
    await detail.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Schedule cron").fill("0 9 * * 1-5");
    await editor.getByRole("button", { name: "Save as version 3" }).click();
    await item.getByTestId("schedule-summary").filter({ hasText: "0 9 * * 1-5" }).waitFor();
    expect(await server.rt.schedules.get(as("ADMIN"), "pulse")).toMatchObject({ cron: "0 9 * * 1-5", version: 3 });

    await detail.getByRole("button", { name: "Delete", exact: true }).click();
    await page
      .getByRole("alertdialog", { name: "Confirm delete" })
      .getByRole("button", { name: "Delete pulse" })
      .click();
    await page.getByText("No schedule yet").first().waitFor();
    expect(await server.rt.schedules.get(as("ADMIN"), "pulse")).toBeNull();
    dash.expectClean();
  });
});
