import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite, type DashboardPage } from "./browser.ts";
import type { TestServer } from "./server.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("rejecting an agent's calls in the dashboard's console, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let dash: DashboardPage;

  async function send(text: string) {
    const { page } = dash;
    await page.getByLabel("Message", { exact: true }).fill(text);
    await page.getByRole("button", { name: "Send" }).click();
  }

  /** The tool results a run stored (`tool_result_step` events), in order. */
  async function storedResults(runId: string) {
    const results: { tool: string; isError: boolean; result: unknown }[] = [];
    for await (const e of await server.rt.agents.events(runId, 0, new AbortController().signal)) {
      if (e.type === "tool_result_step") results.push({ tool: e.tool, isError: e.isError, result: e.result });
    }
    return results;
  }

  /** The turn that resumed the interrupted run, once it stopped streaming, and its run id. */
  async function resumedTurn() {
    const resumed = dash.page.locator(".turn").nth(1);
    await resumed.and(dash.page.locator("[data-streaming=no]")).waitFor();
    return { resumed, runId: (await resumed.getAttribute("data-run"))! };
  }

  it("should reject the kv_put call with a reason, and go on with the run without storing anything", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await send("Remember colour is blue");
    const interrupt = page.getByTestId("interrupt");
    await interrupt.waitFor();

    await interrupt.getByRole("radio", { name: "reject" }).click();
    await interrupt.getByLabel("reason to reject kv_put").fill("not today");
    await interrupt.getByRole("button", { name: "Reject", exact: true }).click();
    const { resumed, runId } = await resumedTurn();

    const step = resumed.locator("[data-testid=tool-step][data-tool=kv_put]");
    await expect(step.innerText()).resolves.toMatch(/error[\s\S]*rejected[\s\S]*not today/);
    // What the model was told, in its answer.
    await expect(resumed.getByTestId("agent-text").innerText()).resolves.toContain(
      "kv_put failed (REJECTED): the reviewer rejected this call: not today",
    );
    await page.locator("[data-testid=agent-runs] button[data-status=RESUMED]").waitFor();
    expect((await server.rt.agents.store.get(runId))!.status).toBe("SUCCEEDED");
    expect(await storedResults(runId)).toEqual([
      { tool: "kv_put", isError: true, result: { rejected: true, message: "not today" } },
    ]);
    expect(await server.rt.db.kvEntry.count()).toBe(0);
    await dash.screenshot("agents-rejected");
    dash.expectClean();
  });

  it("should reject every pending call at once with Reject all", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await page.getByLabel("approve calculate calls").check();
    await send("Remember colour is blue. What is 2 + 3?");
    const interrupt = page.getByTestId("interrupt");
    await interrupt.waitFor();
    await expect(interrupt.locator(".action").count()).resolves.toBe(2);

    await interrupt.getByRole("button", { name: "Reject all" }).click();
    const { resumed, runId } = await resumedTurn();

    await expect(
      resumed.locator("[data-testid=tool-step]").evaluateAll((els) => els.map((el) => el.getAttribute("data-tool"))),
    ).resolves.toEqual(["kv_put", "calculate"]);
    expect(await storedResults(runId)).toEqual([
      { tool: "kv_put", isError: true, result: { rejected: true, message: null } },
      { tool: "calculate", isError: true, result: { rejected: true, message: null } },
    ]);
    const text = await resumed.getByTestId("agent-text").innerText();
    expect(text).toContain("kv_put failed (REJECTED)");
    expect(text).toContain("calculate failed (REJECTED)");
    expect((await server.rt.agents.store.get(runId))!.status).toBe("SUCCEEDED");
    expect(await server.rt.db.kvEntry.count()).toBe(0);
    await dash.screenshot("agents-reject-all");
    dash.expectClean();
  });
});
