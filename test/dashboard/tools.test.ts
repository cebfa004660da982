import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { until } from "../graphql/support.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { gatedTool } from "./server.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("the dashboard's tools screen, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should show the tool surface at /dashboard, offline and without errors", async () => {
    await suite.serve();
    const dash = await suite.open();
    const { page } = dash;
    await expect(page.title()).resolves.toBe("tai42 dashboard");
    const list = page.getByTestId("tool-list");
    for (const name of ["echo", "calculate", "sleep", "kv_put", "admin_stats"])
      await list.locator(`a[data-tool="${name}"]`).waitFor();
    await page.getByTestId("viewer-role").filter({ hasText: "USER" }).waitFor();
    await dash.screenshot("tools");
    dash.expectClean();
  });

  it("should dispatch from a tool's form and show its run go from RUNNING to SUCCEEDED live", async () => {
    const app = new App();
    const gate = gatedTool(app);
    await suite.serve({ app });
    const dash = await suite.open("/dashboard#/tools/gated_step");
    const { page } = dash;
    await page.getByLabel("label").fill("first");
    await page.getByRole("button", { name: "Run" }).click();
    const row = page.getByTestId("run-table").locator("tr[data-tool=gated_step]").first();
    await row.locator('[data-status="RUNNING"]').waitFor();
    await dash.screenshot("tool-running");
    gate.release();
    await row.locator('[data-status="SUCCEEDED"]').waitFor();
    await page.getByTestId("run-outcome").locator('[data-status="SUCCEEDED"]').waitFor();
    await expect(page.getByTestId("run-outcome").innerText()).resolves.toContain('"first"');
    await dash.screenshot("tool-succeeded");
    dash.expectClean();
  });

  it("should show a tool's limits in words and its breaker open after an upstream's 429", async () => {
    const app = new App();
    app.tool(
      {
        name: "guarded",
        description: "Answers 429 with Retry-After 30.",
        input: z.object({}),
        limits: { concurrency: { max: 2, scope: "key" }, rate: { tokens: 10 }, breaker: { failures: 5 } },
      },
      () => {
        throw new ToolError("429 Too Many Requests", { kind: "RATE_LIMITED", retryAfterSeconds: 30 });
      },
    );
    const server = await suite.serve({ app });
    const caller = { role: "USER" as const, keyName: null, keyId: null };
    await server.rt.dispatcher.run({ tool: "guarded", input: {}, caller, door: "graphql" });
    const dash = await suite.open("/dashboard#/tools/guarded");
    const limits = dash.page.getByTestId("tool-limits");
    await limits.filter({ hasText: "at most 2 at once per key (waits 10 s)" }).waitFor();
    await expect(limits.innerText()).resolves.toBe(
      "at most 2 at once per key (waits 10 s) · 10 every 1 s · breaker after 5 failures in a row, open 30 s",
    );
    // Counted down from 30 s: a loaded machine may take seconds to render the page.
    const breaker = dash.page.getByTestId("tool-breaker");
    await breaker.filter({ hasText: /^open: refused for (1\d|2\d|30)(\.\d)? s more$/ }).waitFor();
    await expect(breaker.getAttribute("data-open")).resolves.toBe("true");
    await dash.screenshot("tool-limits");
    dash.expectClean();
  });

  it("should say on a tool's page why it gets one attempt, and where a policy was declared when it has one", async () => {
    const app = new App();
    app.tool({ name: "plain", description: "Answers.", input: z.object({}) }, () => "ok");
    app.tool({ name: "sturdy", description: "Answers.", input: z.object({}) }, () => "ok");
    app.retryPolicy("sturdy", { maxAttempts: 3, idempotent: true });
    await suite.serve({ app });
    const dash = await suite.open("/dashboard#/tools/plain");
    const why = dash.page.locator('[data-why="retry"]');
    await why.filter({ hasText: 'one attempt: no retry policy is declared on "plain"' }).waitFor();
    await dash.page.goto(`${new URL(dash.page.url()).origin}/dashboard#/tools/sturdy`);
    await dash.page.getByText("3 attempts on timeout, rate_limited, unavailable, network").waitFor();
    await expect(why.count()).resolves.toBe(0);
    await dash.screenshot("tool-retry");
    dash.expectClean();
  });

  it("should follow toolsChanged, and keep following it after the connection drops", async () => {
    const app = new App();
    const server = await suite.serve({ app });
    const dash = await suite.open();
    const list = dash.page.getByTestId("tool-list");
    await list.locator('a[data-tool="echo"]').waitFor();
    await until("the page to subscribe to toolsChanged", () => server.rt.bus.listenerCount("toolsChanged") === 1);
    app.tool(
      { name: "added_live", description: "Registered while the page is open.", input: z.object({}) },
      () => "ok",
    );
    await list.locator('a[data-tool="added_live"]').waitFor();

    server.dropConnections();
    await until(
      "the page to subscribe again",
      () => server.rt.bus.listenerCount("toolsChanged") === 1 && server.connections() > 1,
      20_000,
    );
    app.tool(
      { name: "added_after_the_drop", description: "Registered after the connection dropped.", input: z.object({}) },
      () => "ok",
    );
    await list.locator('a[data-tool="added_after_the_drop"]').waitFor();
    dash.expectClean();
  });
});
