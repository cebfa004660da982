import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { as } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { gatedTool } from "./server.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status } }`;

describe.skipIf(!present)("the dashboard's spans screen, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should show a monitored branch's span as it opens and as it closes, live, without a reload", async () => {
    const app = new App();
    const gate = gatedTool(app);
    const server = await suite.serve({ app });
    await server.rt.manifests.put(
      { name: "monitored", document: { extensions: { gated_step: ["monitor"] } } },
      null,
      as("ADMIN"),
    );
    await server.rt.manifests.activate("monitored", as("ADMIN"));
    const dash = await suite.open("/dashboard#/spans");
    const { page } = dash;
    await page.getByText("No spans yet.").waitFor();
    await until("the page to subscribe to spans", () => server.rt.bus.listenerCount("span") >= 1);
    // Set in this document: a reload or a navigation would lose it.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));

    const pending = server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
      tool: "gated_step_monitor",
      input: { label: "traced" },
    });
    const opened = page.getByTestId("span-table").locator("tbody tr[data-status=RUNNING]");
    await opened.waitFor();
    const spanId = (await opened.getAttribute("data-span"))!;
    await expect(opened.innerText()).resolves.toContain("running");
    await dash.screenshot("spans-running");

    gate.release();
    const run = (await pending).data!.dispatch;
    expect(run.status).toBe("SUCCEEDED");
    const closed = page.locator(`tr[data-span="${spanId}"][data-status=SUCCEEDED]`);
    await closed.waitFor();
    await closed.locator(`a[href="#/runs/${run.id}"]`).waitFor();
    await expect(closed.innerText()).resolves.not.toContain("running");
    // The closing replaced the opening: one row for the one span.
    await expect(page.getByTestId("span-table").locator("tbody tr[data-span]").count()).resolves.toBe(1);
    await expect(page.evaluate(() => (window as { sameDocument?: boolean }).sameDocument)).resolves.toBe(true);
    await dash.screenshot("spans-live");
    dash.expectClean();
  });
});
