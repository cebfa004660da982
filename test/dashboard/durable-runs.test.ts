import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { until } from "../graphql/support.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { dashboardSuite } from "./browser.ts";
import { gatedTool } from "./server.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!, $background: Boolean) {
  dispatch(input: { tool: $tool, input: $input, background: $background }) { id status }
}`;

/**
 * Durable runs on the dashboard (docs/run-lifecycle.md §11): a background dispatch from a tool's form, followed from
 * QUEUED to its end, and a run whose outcome is unknown, settled from its detail. Runs on the database TAI_TEST_DB
 * selects.
 */
describe.skipIf(!present)("the dashboard's durable runs, in headless Chromium", () => {
  const suite = dashboardSuite();
  let other: TestRuntime | undefined;
  afterEach(async () => {
    await other?.close();
    other = undefined;
  });

  it("should dispatch in the background from a tool's form, show the run QUEUED, then follow it to SUCCEEDED", async () => {
    const app = new App();
    const gate = gatedTool(app);
    // One background run at a time: the form's run waits QUEUED behind the first for as long as the test wants.
    const server = await suite.serve({ app, config: { queueConcurrency: 1 } });
    const first = (
      await server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
        tool: "gated_step",
        input: { label: "ahead" },
        background: true,
      })
    ).data!.dispatch;
    expect(first.status).toBe("QUEUED");
    await until("the first run to start", async () => (await server.rt.runs.get(first.id))?.status === "RUNNING");

    const dash = await suite.open("/dashboard#/tools/gated_step");
    const { page } = dash;
    await page.getByLabel("label").fill("behind");
    await page.getByLabel("Run in the background").check();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const outcome = page.getByTestId("run-outcome");
    await outcome.locator('[data-status="QUEUED"]').waitFor();
    const row = page.getByTestId("run-table").locator("tr[data-tool=gated_step][data-status=QUEUED]");
    await row.waitFor();
    const id = (await row.getAttribute("data-run"))!;
    expect(id).not.toBe(first.id);
    await expect(outcome.innerText()).resolves.toContain("QUEUED");

    // The runs screen's shortcut lists the queued runs: this one alone.
    await page.goto(`${server.origin}/dashboard#/runs`);
    await page.getByRole("button", { name: "Queued" }).click();
    const rows = page.getByTestId("run-table").locator("tbody tr");
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-run")))).toEqual([id]);
    await dash.screenshot("runs-queued");

    await page.goto(`${server.origin}/dashboard#/tools/gated_step`);
    await page.getByLabel("label").fill("followed");
    await page.getByLabel("Run in the background").check();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await outcome.locator('[data-status="QUEUED"]').waitFor();
    gate.release(); // the first run ends: "behind" runs, and is released next
    gate.release();
    gate.release(); // "followed", the form's run
    await outcome.locator('[data-status="SUCCEEDED"]').waitFor({ timeout: 20_000 });
    await expect(outcome.innerText()).resolves.toContain('"followed"');
    await until("the queued run to succeed", async () => (await server.rt.runs.get(id))?.status === "SUCCEEDED");
    const events = await server.rt.db.runEvent.findMany({ where: { runId: id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["RUN_QUEUED", "RUN_STARTED", "RUN_FINISHED"]);
    dash.expectClean();
  }, 60_000);

  it("should explain a run whose outcome is unknown and settle it FAILED with a message from its detail", async () => {
    const app = new App();
    const gate = gatedTool(app);
    const server = await suite.serve({ app });
    const pending = server.gql(DISPATCH, { tool: "gated_step", input: { label: "lost" } }).catch((e: unknown) => e);
    await until("the run to start", async () => (await server.rt.runs.list({ tool: "gated_step" }, 1)).length === 1);
    const [run] = await server.rt.runs.list({ tool: "gated_step" }, 1);
    // Another instance over the same database, whose live list leaves the server's instance out: declared gone.
    other = await testRuntime({ databaseUrl: server.rt.config.databaseUrl });
    const swept = await other.dispatcher.settleOrphans([other.instanceId], () => "declared gone by a test");
    expect(swept.events.map((e) => e.runId)).toEqual([run.id]);
    expect((await server.rt.runs.get(run.id))?.status).toBe("OUTCOME_UNKNOWN");

    const dash = await suite.open(`/dashboard#/runs/${run.id}`);
    const { page } = dash;
    const detail = page.getByTestId("run-detail");
    await detail.and(page.locator('[data-status="OUTCOME_UNKNOWN"]')).waitFor();
    const unknown = page.getByTestId("run-unknown");
    await expect(unknown.innerText()).resolves.toContain("Its instance stopped while it ran; its outcome is unknown");
    await expect(detail.locator("header").first().innerText()).resolves.toContain("OUTCOME UNKNOWN");
    await dash.screenshot("run-unknown");
    await unknown.getByRole("button", { name: "Settle…" }).click();
    await page.getByLabel("Settled outcome").selectOption("FAILED");
    await page.getByLabel("Settle message").fill("the charge did not go through");
    await unknown.getByRole("button", { name: "Confirm settle" }).click();
    await detail.and(page.locator('[data-status="FAILED"]')).waitFor();
    await expect(page.getByRole("region", { name: "Output" }).innerText()).resolves.toContain(
      "the charge did not go through",
    );
    await expect(page.getByTestId("run-unknown").count()).resolves.toBe(0);
    await expect(page.getByTestId("settled-by").innerText()).resolves.toContain("anonymous USER");
    const stored = await server.rt.runs.get(run.id);
    expect(stored).toMatchObject({ status: "FAILED", errorMessage: "the charge did not go through" });
    await page.screenshot({ path: "/tmp/dash-durable.png", fullPage: true });
    await dash.screenshot("run-settled");
    gate.release();
    await pending;
    dash.expectClean();
  }, 60_000);

  it("should retry a run whose outcome is unknown from its detail, then follow it to SUCCEEDED", async () => {
    const app = new App();
    const gate = gatedTool(app);
    const server = await suite.serve({ app });
    // Dispatched in the background: its input is stored as it runs, so it may be retried.
    const run = (
      await server.gql<{ dispatch: { id: string } }>(DISPATCH, {
        tool: "gated_step",
        input: { label: "again" },
        background: true,
      })
    ).data!.dispatch;
    await until("the run to start", async () => (await server.rt.runs.get(run.id))?.status === "RUNNING");
    other = await testRuntime({ databaseUrl: server.rt.config.databaseUrl });
    await other.dispatcher.settleOrphans([other.instanceId], () => "declared gone by a test");
    // Closed: its queue workers (an app without gated_step) must not take the retried run.
    await other.close();
    other = undefined;
    gate.release(); // the cut body ends; the retried attempt waits for the next release

    const dash = await suite.open(`/dashboard#/runs/${run.id}`);
    const { page } = dash;
    const detail = page.getByTestId("run-detail");
    await detail.and(page.locator('[data-status="OUTCOME_UNKNOWN"]')).waitFor();
    await page.getByTestId("run-unknown").getByRole("button", { name: "Retry…" }).click();
    await page.getByTestId("run-unknown").getByRole("button", { name: "Confirm retry" }).click();
    await until("the retried attempt to start", () => gate.started() === 2);
    gate.release();
    await detail.and(page.locator('[data-status="SUCCEEDED"]')).waitFor({ timeout: 20_000 });
    await expect(page.getByRole("region", { name: "Output" }).innerText()).resolves.toContain('"again"');
    dash.expectClean();
  }, 60_000);
});
