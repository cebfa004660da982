import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { until } from "../graphql/support.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { gatedTool, type TestServer } from "./server.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status } }`;

describe.skipIf(!present)("the dashboard's runs screen, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let gate: ReturnType<typeof gatedTool>;

  async function open(path: string) {
    const app = new App();
    gate = gatedTool(app);
    app.tool(
      {
        name: "echo_twice",
        description: "Echoes its text twice, as two child runs.",
        input: z.object({ text: z.string() }),
      },
      async ({ text }, ctx) => {
        await ctx.runTool("echo", { text });
        return (await ctx.runTool("echo", { text })).data;
      },
    );
    server = await suite.serve({ app });
    const dash = await suite.open(path);
    return { page: dash.page, server, dash };
  }

  /** Resolves once the page's runEvents subscription is registered on the server. */
  const listening = (count = 1) =>
    until("the page to subscribe to runEvents", () => server.rt.bus.listenerCount("runEvent") >= count);

  it("should show a run dispatched by another client as it starts and as it ends, with its tool, status and id", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    await listening();
    const other = server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
      tool: "gated_step",
      input: { label: "from elsewhere" },
    });
    const row = page.locator("tr[data-tool=gated_step]");
    await row.locator('[data-status="RUNNING"]').waitFor();
    gate.release();
    const run = (await other).data!.dispatch;
    expect(run.status).toBe("SUCCEEDED");
    await row.locator('[data-status="SUCCEEDED"]').waitFor();
    // Ids are time-ordered (two runs of one minute share their first 8 characters): their random end is shown.
    const next = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "echo", input: { text: "b" } }))
      .data!.dispatch;
    const shown = async (id: string) => page.locator(`tr[data-run="${id}"] .short-id`).innerText();
    await page.locator(`tr[data-run="${next.id}"]`).waitFor();
    expect([await shown(run.id), await shown(next.id)]).toEqual([`…${run.id.slice(-8)}`, `…${next.id.slice(-8)}`]);
    expect(await row.getAttribute("data-run")).toBe(run.id);
    dash.expectClean();
  });

  it("should keep the list live after the connection drops, missing nothing in between", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    await listening();
    await server.gql(DISPATCH, { tool: "echo", input: { text: "before" } });
    await page.locator("tr[data-tool=echo][data-status=SUCCEEDED]").waitFor();
    const opened = server.dropConnections();
    // Dispatched while the page has no connection: the page catches up by afterSeq once it reconnects.
    const during = (
      await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "calculate", input: { op: "add", a: 1, b: 2 } })
    ).data!.dispatch;
    await page.locator(`tr[data-run="${during.id}"][data-status=SUCCEEDED]`).waitFor({ timeout: 20_000 });
    expect(server.connections()).toBeGreaterThan(opened);
    dash.expectClean();
  });

  it("should filter the live list by tool, status and door", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    await listening();
    await server.gql(DISPATCH, { tool: "echo", input: { text: "hello" } });
    await server.gql(DISPATCH, { tool: "calculate", input: { op: "divide", a: 1, b: 0 } });
    const rows = page.getByTestId("run-table").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel("Filter by status").selectOption("FAILED");
    await expect
      .poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-tool"))))
      .toEqual(["calculate"]);
    await page.getByLabel("Filter by status").selectOption("");
    await page.getByLabel("Filter by tool").selectOption("echo");
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-tool")))).toEqual(["echo"]);
    await page.getByLabel("Filter by tool").selectOption("");
    await page.getByLabel("Filter by door").selectOption("cli");
    await page.getByText("No run matches.").waitFor();
    await page.getByLabel("Filter by door").selectOption("graphql");
    await expect.poll(() => rows.count()).toBe(2);
    await dash.screenshot("runs");
    dash.expectClean();
  });

  it("should show a run's attempts, waits, events and output, following it live", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    const flaky = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "flaky", input: { failures: 2 } }))
      .data!.dispatch;
    await page.locator(`tr[data-run="${flaky.id}"] a[href="#/runs/${flaky.id}"]`).click();
    const detail = page.getByTestId("run-detail");
    await detail.and(page.locator('[data-status="SUCCEEDED"]')).waitFor();
    await expect
      .poll(() =>
        page
          .getByTestId("run-events")
          .locator("tbody tr")
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-event"))),
      )
      .toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
    const attempts = page.getByRole("region", { name: "Attempts" }).locator("tbody tr");
    await expect.poll(() => attempts.count()).toBe(3);
    await expect(attempts.first().innerText()).resolves.toContain("UNAVAILABLE");
    await expect(page.getByRole("region", { name: "Output" }).innerText()).resolves.toContain('"answeredOnAttempt": 3');
    await dash.screenshot("run-detail");
    dash.expectClean();
  });

  it("should show, for each attempt of a retried run, the wait the retry policy took before the next", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    const flaky = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "flaky", input: { failures: 2 } }))
      .data!.dispatch;
    const waits = (await server.rt.runs.get(flaky.id))!.attempts.map((a) => a.waitSeconds);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[1]).toBeGreaterThan(0);
    expect(waits[2]).toBeNull();
    await page.goto(`${server.origin}/dashboard#/runs/${flaky.id}`);
    const attempts = page.getByRole("region", { name: "Attempts" });
    await attempts.getByRole("columnheader", { name: "Then waited" }).waitFor();
    const rows = attempts.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    // The demo policy's backoff starts at 0.05 s and doubles: each wait is shown in milliseconds.
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll("td")[4]?.textContent));
    expect(shown).toEqual([`${Math.round(waits[0]! * 1000)} ms`, `${Math.round(waits[1]! * 1000)} ms`, "—"]);
    dash.expectClean();
  });

  it("should show the runs a run started, each linking to its own detail, and link back to their parent", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    const parent = (
      await server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
        tool: "echo_twice",
        input: { text: "hi" },
      })
    ).data!.dispatch;
    expect(parent.status).toBe("SUCCEEDED");
    await page.goto(`${server.origin}/dashboard#/runs/${parent.id}`);
    const children = page.getByRole("region", { name: "Children" }).locator("tbody tr");
    await expect
      .poll(() => children.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-tool"))))
      .toEqual(["echo", "echo"]);
    await children.first().locator("a[href^='#/runs/']").click();
    await page.getByTestId("run-detail").getByText("Started by").waitFor();
    await page.getByTestId("run-detail").locator(`a[href="#/runs/${parent.id}"]`).click();
    await page.getByRole("region", { name: "Children" }).waitFor();
    dash.expectClean();
  });

  it("should count the runs matching the filter, and show older ones a page at a time", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    await listening();
    for (let i = 0; i < 52; i++) await server.gql(DISPATCH, { tool: "echo", input: { text: `run ${i}` } });
    await page.reload();
    await page.getByTestId("run-count").getByText("50 of 52 runs").waitFor();
    await page.getByRole("button", { name: "Show older runs" }).click();
    await page.getByTestId("run-count").getByText("52 of 52 runs").waitFor();
    await expect(page.getByRole("button", { name: "Show older runs" }).count()).resolves.toBe(0);
    await server.gql(DISPATCH, { tool: "calculate", input: { op: "add", a: 1, b: 1 } });
    await page.getByTestId("run-count").getByText("53 of 53 runs").waitFor();
    dash.expectClean();
  });

  it("should cancel a running run from its detail", async () => {
    const { page, server, dash } = await open("/dashboard#/runs");
    await listening();
    const pending = server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
      tool: "gated_step",
      input: { label: "to cancel" },
    });
    await page.locator("tr[data-tool=gated_step] a[href^='#/runs/']").click();
    await page.getByTestId("run-detail").and(page.locator('[data-status="RUNNING"]')).waitFor();
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByTestId("run-detail").and(page.locator('[data-status="CANCELLED"]')).waitFor();
    expect((await pending).data!.dispatch.status).toBe("CANCELLED");
    await expect(page.getByRole("button", { name: "Cancel run" }).count()).resolves.toBe(0);
    dash.expectClean();
  });
});
