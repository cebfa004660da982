import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { useScript } from "../agent/support.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();

/**
 * What a button or a link may not hold (HTML's content models): interactive content (a control inside a control: a
 * keyboard user cannot reach the inner one, a screen reader reads one control), and flow content such as a div (a
 * button's content is phrasing content only).
 */
const NESTED = [
  ":is(button, a[href]) :is(button, a[href], input, select, textarea, details, [tabindex])",
  "button :is(div, p, ul, ol, li, table, section, h1, h2, h3, h4)",
].join(", ");

describe.skipIf(!present)("the dashboard's list items and row links, as HTML, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should put no control and no block inside a button or a link on any screen holding lists of items", async () => {
    const server = await suite.serve();
    const admin = await server.rt.keys.create("ops", "ADMIN");
    const gql = async (query: string, variables: Record<string, unknown>) =>
      expect((await server.gql(query, variables, admin)).errors).toBeUndefined();
    await gql(`mutation($i: DispatchInput!) { dispatch(input: $i) { id } }`, {
      i: { tool: "echo", input: { text: "a" } },
    });
    await gql(`mutation($i: PresetInput!) { createPreset(input: $i) { name } }`, {
      i: { name: "echo_hi", baseTool: "echo", description: "Says hi.", fixedKwargs: { text: "hi" } },
    });
    await gql(`mutation($d: JSONObject!) { putManifest(input: { name: "plain", document: $d }) { name } }`, {
      d: { tools: { include: ["echo"] } },
    });
    await gql(`mutation($i: ScheduleInput!) { putSchedule(input: $i) { name } }`, {
      i: { name: "nightly", cron: "0 3 * * *", tool: "echo", input: { text: "n" }, enabled: false },
    });
    useScript(server.rt.agents, "hello", () => ({ text: "Hello." }));
    await gql(`mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`, {
      i: { userMessage: "hi", llmProvider: "hello" },
    });
    const dash = await suite.open("/dashboard#/tools");
    const { page } = dash;
    await page.evaluate((k) => sessionStorage.setItem("tai42.apiKey", k), admin);
    await page.reload();
    await page.getByTestId("viewer-role").filter({ hasText: "ADMIN" }).waitFor();
    const screens: [string, string][] = [
      ["tools", "a[data-tool]"],
      ["runs", "tr[data-run]"],
      ["agents", "button[data-agent-run]"],
      ["composition", "button[data-preset]"],
      ["schedules", "a[data-schedule]"],
    ];
    for (const [screen, ready] of screens) {
      await page.goto(`${server.origin}/dashboard#/${screen}`);
      await page.locator(ready).first().waitFor();
      const nested = await page.evaluate(
        (selector) =>
          [...document.querySelectorAll(selector)].map((e) => `${e.parentElement?.outerHTML.slice(0, 120)}`),
        NESTED,
      );
      expect({ screen, nested }).toEqual({ screen, nested: [] });
      if (screen === "agents") await dash.screenshot("markup-agent-runs");
    }
    await page.goto(`${server.origin}/dashboard#/composition`);
    await page.locator("[data-preset]").first().waitFor();
    await dash.screenshot("markup-composition-items");
    dash.expectClean();
  });
});
