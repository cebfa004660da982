import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/agent/providers/demo-script.ts";
import { ScriptedModel } from "../../src/agent/providers/scripted-model.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite, type DashboardPage } from "./browser.ts";
import type { TestServer } from "./server.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("the dashboard's agent console, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let dash: DashboardPage;

  /** The terminal event a run stored, as the server has it. */
  const finalOf = async (runId: string) => (await server.rt.agents.store.get(runId))!;

  async function send(text: string) {
    const { page } = dash;
    await page.getByLabel("Message", { exact: true }).fill(text);
    await page.getByRole("button", { name: "Send" }).click();
  }

  it("should stream an agent run, stop on the kv_put approval gate, and finish the run once approved", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await expect(page.getByLabel("approve kv_put calls").isChecked()).resolves.toBe(true);
    await send("Remember colour is blue");

    const interrupt = page.getByTestId("interrupt");
    await interrupt.waitFor();
    await expect(interrupt.innerText()).resolves.toMatch(/kv_put[\s\S]*"colour"[\s\S]*"blue"/);
    expect(await server.rt.db.kvEntry.count()).toBe(0);
    await dash.screenshot("agents-interrupt");

    await interrupt.getByRole("button", { name: "Approve" }).click();
    const resumed = page.locator(".turn").nth(1);
    await resumed.locator("[data-testid=tool-step][data-tool=kv_put]").getByText("done").waitFor();
    await resumed.and(page.locator("[data-streaming=no]")).waitFor();
    const runId = (await resumed.getAttribute("data-run"))!;
    const text = await resumed.getByTestId("agent-text").innerText();
    expect(text).toContain("Here is what I found");
    expect((await finalOf(runId)).status).toBe("SUCCEEDED");
    expect((await server.rt.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("blue");
    await dash.screenshot("agents");
    dash.expectClean();
  });

  it("should decide an interrupt after a page reload, from the list of recent agent runs", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await send("Remember colour is green");
    await page.getByTestId("interrupt").waitFor();
    await page.reload();

    await page.locator("[data-testid=agent-runs] button[data-status=INTERRUPTED]").click();
    const interrupt = page.getByTestId("interrupt");
    await expect(interrupt.innerText()).resolves.toContain('"green"');
    await interrupt.getByRole("radio", { name: "edit" }).click();
    await interrupt.getByLabel("Arguments to run it with").fill('{ "key": "colour", "value": "teal" }');
    await interrupt.getByRole("button", { name: "Run with these arguments" }).click();
    const resumed = page.locator(".turn").nth(1);
    await resumed.and(page.locator("[data-streaming=no]")).waitFor();
    expect((await server.rt.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("teal");
    await page.locator("[data-testid=agent-runs] button[data-status=RESUMED]").waitFor();
    dash.expectClean();
  });

  it("should answer the agent's question and let it go on", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await send("Ask me which city to remember");
    const asks = page.getByTestId("asks");
    await asks.waitFor();
    await asks.getByRole("textbox").fill("Lyon");
    await asks.getByRole("button", { name: "Send answer" }).click();
    const resumed = page.locator(".turn").nth(1);
    await resumed.and(page.locator("[data-streaming=no]")).waitFor();
    await expect(resumed.locator("[data-testid=tool-step][data-tool=ask_caller]").innerText()).resolves.toContain(
      "Lyon",
    );
    await dash.screenshot("agents-asks");
    dash.expectClean();
  });

  it("should continue the same thread with the next message", async () => {
    server = await suite.serve();
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await page.getByLabel("approve kv_put calls").uncheck();
    await send("Remember city is Lyon");
    await page.locator(".turn").nth(0).and(page.locator("[data-streaming=no]")).waitFor();
    await send("Recall city");
    const second = page.locator(".turn").nth(1);
    await second.and(page.locator("[data-streaming=no]")).waitFor();
    await expect(second.getByTestId("agent-text").last().innerText()).resolves.toContain("Lyon");
    const [a, b] = await Promise.all(
      [0, 1].map(async (n) => finalOf((await page.locator(".turn").nth(n).getAttribute("data-run"))!)),
    );
    expect(a.threadId).toBeTruthy();
    expect(b.threadId).toBe(a.threadId);
    await page.getByText(`thread …${a.threadId!.slice(-8)}`).waitFor();
    dash.expectClean();
  });

  it("should rejoin a run after its connection drops, by afterSeq, without showing any text twice", async () => {
    server = await suite.serve();
    // A slower demo model, so that the connection drops while the answer streams.
    server.rt.agents.providers.register({
      name: "scripted",
      description: "slow demo model",
      configured: () => true,
      create: () => new ScriptedModel(demoScript, { chunkDelayMs: 120 }),
    });
    dash = await suite.open("/dashboard#/agents");
    const { page } = dash;
    await send("What is 6 times 7?");
    const turn = page.locator(".turn").first();
    await turn.locator("[data-testid=tool-step][data-tool=calculate]").getByText("done").waitFor();
    const opened = server.dropConnections();
    await turn.and(page.locator("[data-streaming=no]")).waitFor({ timeout: 30_000 });
    expect(server.connections()).toBeGreaterThan(opened);
    const runId = (await turn.getAttribute("data-run"))!;
    const stored = await server.rt.agents.events(runId, 0, new AbortController().signal);
    // Every MessageDelta once, in order: the text beside the calculate call, then the answer.
    let streamed = "";
    let answer = "";
    for await (const e of stored) {
      if (e.type === "message_delta") streamed += e.text;
      if (e.type === "message_final") answer = e.text;
    }
    const norm = (t: string) => t.replace(/\s+/g, " ").trim();
    const shown = (await turn.locator("[data-testid=agent-text], [data-testid=agent-aside]").allInnerTexts()).join("");
    expect(norm(shown)).toBe(norm(streamed));
    await expect(turn.getByTestId("agent-text").innerText()).resolves.toBe(answer);
    expect(answer).toContain("42");
    expect(await turn.getByTestId("tool-step").count()).toBe(1);
    dash.expectClean();
  });
});
