import { describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/roles.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite, type DashboardPage } from "./browser.ts";
import type { TestServer } from "./server.ts";

const present = await chromiumPresent();
const RUNS = `{ agentRuns(first: 10) { edges { node { id userMessage toolNames llmProvider model callerKey resumeOf } } } }`;

describe.skipIf(!present)("the agent console's decisions, tools and run list, in headless Chromium", () => {
  const suite = dashboardSuite();
  let server: TestServer;
  let dash: DashboardPage;

  /** Opens the agents screen as a key of `role` named `name`, taken as a tab that was given it. */
  async function openAs(role: Role, name: string) {
    server = await suite.serve();
    const key = await server.rt.keys.create(name, role);
    dash = await suite.open("/dashboard#/agents");
    await dash.page.evaluate((k) => sessionStorage.setItem("tai42.apiKey", k), key);
    await dash.page.reload();
    await dash.page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
    return { page: dash.page, key };
  }

  async function send(text: string) {
    await dash.page.getByLabel("Message", { exact: true }).fill(text);
    await dash.page.getByRole("button", { name: "Send" }).click();
  }

  /** The turn that resumed the interrupted run, once it stopped streaming. */
  async function resumed() {
    const turn = dash.page.locator(".turn").nth(1);
    await turn.and(dash.page.locator("[data-streaming=no]")).waitFor();
    return turn;
  }

  it("should say an edit was approved, by whom and when, showing the arguments run, also after a reload", async () => {
    const { page } = await openAs("USER", "dev");
    await send("Remember colour is green");
    const interrupt = page.getByTestId("interrupt");
    await interrupt.getByRole("radio", { name: "edit" }).click();
    await interrupt.getByLabel("Arguments to run it with").fill('{ "key": "colour", "value": "teal" }');
    await interrupt.getByRole("button", { name: "Run with these arguments" }).click();
    await resumed();
    expect((await server.rt.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("teal");

    const expectDecided = async () => {
      const card = page.getByTestId("interrupt").and(page.locator("[data-decided=yes]"));
      await card.waitFor();
      const action = card.locator("[data-decision=edit][data-tool=kv_put]");
      await expect(action.getByTestId("decision").innerText()).resolves.toBe("Approved with edited arguments");
      // The arguments the call ran with, not the ones the model asked for.
      await expect(action.locator(".json").innerText()).resolves.toContain('"teal"');
      await expect(card.innerText()).resolves.not.toContain('"green"');
      await expect(card.getByTestId("decided-by").innerText()).resolves.toMatch(/^Decided by key dev at \d/);
    };
    await expectDecided();
    await dash.screenshot("agents-decided-edit");

    // Replayed from the run list: the stored run, then the run that resumed it, tell the same.
    await page.reload();
    await page.locator("[data-testid=agent-runs] button[data-status=RESUMED]").click();
    await page.locator(".turn").nth(1).and(page.locator("[data-streaming=no]")).waitFor();
    await expect(page.locator(".resume-chip").nth(1).innerText()).resolves.toMatch(/resumed by run …/);
    await expectDecided();
    await dash.screenshot("agents-decided-edit-replayed");
    dash.expectClean();
  });

  it("should say a call was rejected and why, from a labelled reason field whose buttons stay in sight", async () => {
    const { page } = await openAs("USER", "dev");
    await page.setViewportSize({ width: 1360, height: 620 });
    await page.getByLabel("approve calculate calls").check();
    const long = Array.from({ length: 90 }, (_, i) => `word${i}`).join(" ");
    await send(`Remember colour is ${long}. What is 2 + 3?`);
    const interrupt = page.getByTestId("interrupt");
    await interrupt.waitFor();
    await interrupt.getByRole("radio", { name: "reject" }).first().click();
    // The reason has a visible label naming it (a <label for>), not a placeholder alone.
    const label = interrupt.locator("label[for]", { hasText: "Reason to reject kv_put" });
    await expect(label.isVisible()).resolves.toBe(true);
    const reason = page.locator(`#${await label.getAttribute("for")}`);
    await reason.fill("not today");
    await expect(interrupt.getByLabel("Reason to reject kv_put").inputValue()).resolves.toBe("not today");

    // Read from the card's top, the decision buttons are still in sight: no inner box to scroll to reach them.
    await page.getByTestId("transcript").evaluate((t) => {
      const card = t.querySelector("[data-testid=interrupt]")!;
      t.scrollTop += card.getBoundingClientRect().top - t.getBoundingClientRect().top;
    });
    const send2 = interrupt.getByRole("button", { name: "Send decisions" });
    const [button, box] = await Promise.all([send2.boundingBox(), page.getByTestId("transcript").boundingBox()]);
    const height = await page.evaluate(() => window.innerHeight);
    expect(button!.y).toBeGreaterThanOrEqual(box!.y);
    expect(button!.y + button!.height).toBeLessThanOrEqual(Math.min(box!.y + box!.height, height));
    await dash.screenshot("agents-reject-labelled");

    await send2.click();
    await resumed();
    const card = page.getByTestId("interrupt").and(page.locator("[data-decided=yes]"));
    const rejected = card.locator("[data-decision=reject][data-tool=kv_put]");
    await expect(rejected.getByTestId("decision").innerText()).resolves.toBe("Rejected");
    await expect(rejected.getByTestId("reject-reason").innerText()).resolves.toBe("Reason: not today");
    await expect(card.locator("[data-decision=approve][data-tool=calculate]").innerText()).resolves.toMatch(
      /Approved[\s\S]*"a": 2/,
    );
    expect(await server.rt.db.kvEntry.count()).toBe(0);
    await dash.screenshot("agents-decided-reject");
    dash.expectClean();
  });

  it("should offer a READER only the read tools, say which are left out, and run with those alone", async () => {
    const { page } = await openAs("READER", "audit");
    const offered = page.getByRole("list", { name: "Agent tools" }).locator("li");
    await expect
      .poll(() => offered.evaluateAll((lis) => lis.map((li) => li.querySelector(".mono")?.textContent)))
      .toEqual(["calculate", "clock", "echo", "flaky", "kv_get", "sleep"]);
    await expect(page.getByTestId("withheld-tools").innerText()).resolves.toBe(
      "3 tools are not offered: your role (READER) may not run write or fenced or secret tools, so the server would refuse the agent's calls.",
    );
    await dash.screenshot("agents-reader-tools");
    await send("What is 6 times 7?");
    const turn = page.locator(".turn").first();
    await turn.and(page.locator("[data-streaming=no]")).waitFor();
    await expect(turn.getByTestId("agent-text").innerText()).resolves.toContain("42");
    const runId = (await turn.getAttribute("data-run"))!;
    expect((await server.rt.agents.store.get(runId))!.input.toolNames).toEqual(["calculate", "clock", "kv_get"]);
    dash.expectClean();
  });

  it("should tell recent agent runs apart by their message, time, status, tools, provider and key", async () => {
    const { page, key } = await openAs("USER", "dev");
    await send("What is 6 times 7?");
    await page.locator(".turn").first().and(page.locator("[data-streaming=no]")).waitFor();
    const long = `Remember colour is ${"very ".repeat(40)}blue`;
    await send(long);
    await page.getByTestId("interrupt").waitFor();
    const items = page.getByTestId("agent-runs").locator("button[data-agent-run]");
    await expect.poll(() => items.count()).toBe(2);
    await expect(items.getByTestId("agent-run-ask").allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^“?Remember colour is very very .*…”?$/),
      expect.stringMatching(/^“?What is 6 times 7\?”?$/),
    ]);
    const facts = await items.getByTestId("agent-run-facts").allInnerTexts();
    expect(facts).toEqual([
      "tools_agent · tools: calculate, clock, kv_get, kv_put · default provider · key dev",
      "tools_agent · tools: calculate, clock, kv_get, kv_put · default provider · key dev",
    ]);
    await expect(items.locator("[data-status]").first().getAttribute("data-status")).resolves.toBe("INTERRUPTED");
    await expect(items.locator("time").count()).resolves.toBe(2);
    await dash.screenshot("agents-recent-runs");

    // The API says the same: the message cut at a word boundary within 160 characters.
    const { data } = await server.gql<{
      agentRuns: { edges: { node: { userMessage: string; callerKey: string; resumeOf: null } }[] };
    }>(RUNS, {}, key);
    const message = data!.agentRuns.edges[0].node.userMessage;
    expect(message.length).toBeLessThanOrEqual(161);
    expect(message.endsWith("very…")).toBe(true);
    expect(long.startsWith(message.slice(0, -1))).toBe(true);
    expect(data!.agentRuns.edges.map((e) => [e.node.callerKey, e.node.resumeOf])).toEqual([
      ["dev", null],
      ["dev", null],
    ]);
    dash.expectClean();
  });
});
