import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { echoApp } from "./modules/echo-agent.ts";

const present = await chromiumPresent();

/** Enters an API key in the page's key field, as a person would. */
async function useKey(page: Page, key: string, role: string) {
  await page.getByRole("button", { name: /Enter API key|Change key/ }).click();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByTestId("viewer-role").filter({ hasText: role }).waitFor();
}

const HTML = `<img src=x onerror="window.__injected=1"> **bold** <script>window.__injected=2</script>`;

describe.skipIf(!present)("the Studio over an agent's own input and a READER key, in headless Chromium", () => {
  const suite = dashboardSuite();

  it(
    "should offer a READER only the tools and agents its role may run, and start the run with those alone",
    { timeout: 90_000 },
    async () => {
      const server = await suite.serve({ app: echoApp() });
      const reader = await server.rt.keys.create("audit", "READER");
      await server.rt.keys.create("ops", "ADMIN");
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await useKey(page, reader, "READER");
      await page.getByLabel("Message", { exact: true }).waitFor();
      // A tool above the reader's tier is not offered at all (issue 30), and the page says how many are left out.
      await expect(page.getByLabel("use clock", { exact: true }).isDisabled()).resolves.toBe(false);
      for (const tool of ["kv_put", "admin_stats", "sign_message"])
        await expect(page.getByLabel(`use ${tool}`, { exact: true }).count(), tool).resolves.toBe(0);
      await expect(page.getByTestId("withheld-tools").innerText()).resolves.toMatch(/^3 tools are not offered/);
      // An agent above the reader's tier is listed, not offered: the server refuses its start.
      const writer = page.getByLabel("Agent", { exact: true }).locator("option[value=writer_echo]");
      await expect(writer.isDisabled()).resolves.toBe(true);
      await expect(writer.innerText()).resolves.toBe("writer_echo (write tier: not for READER)");
      await expect(
        page.getByLabel("Agent", { exact: true }).locator("option[value=echo_input]").isDisabled(),
      ).resolves.toBe(false);
      await page.getByLabel("Message", { exact: true }).fill("What time is it?");
      await page.getByRole("button", { name: "Send" }).click();
      const turn = page.locator(".turn").first();
      await turn.and(page.locator("[data-streaming=no]")).waitFor({ timeout: 30_000 });
      const run = (await server.rt.agents.store.get((await turn.getAttribute("data-run"))!))!;
      // The default picks were calculate, clock, kv_get and kv_put gated: kv_put is not the reader's to offer.
      expect({ toolNames: run.input.toolNames, interruptOn: run.input.interruptOn }).toEqual({
        toolNames: ["calculate", "clock", "kv_get"],
        interruptOn: undefined,
      });
      expect(run.status).toBe("SUCCEEDED");
      dash.expectClean();
    },
  );

  it(
    "should send nested objects, lists and enums of an agent's input as typed, and show an HTML answer as text",
    { timeout: 90_000 },
    async () => {
      const server = await suite.serve({ app: echoApp() });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.getByLabel("Agent", { exact: true }).selectOption("echo_input");
      await page.getByTestId("not-composable").waitFor();
      await page.locator("#agent-echo_input_trip_city").fill("Lyon");
      await page.locator("#agent-echo_input_trip_nights").fill("3");
      await page.locator("#agent-echo_input_tags__add").click();
      await page.locator("#agent-echo_input_tags__add").click();
      await page.locator("#agent-echo_input_tags_0").fill("food");
      await page.locator("#agent-echo_input_tags_1").fill("art");
      await page.locator("#agent-echo_input_mode").selectOption({ label: "slow" });
      await page.locator("#agent-echo_input_note").fill(HTML);
      await page.getByRole("button", { name: "Run", exact: true }).click();
      const turn = page.locator(".turn").first();
      await turn.and(page.locator("[data-final=MessageFinal]")).waitFor({ timeout: 30_000 });
      const run = (await server.rt.agents.store.get((await turn.getAttribute("data-run"))!))!;
      expect({ trip: run.input.trip, tags: run.input.tags, mode: run.input.mode, note: run.input.note }).toEqual({
        trip: { city: "Lyon", nights: 3 },
        tags: ["food", "art"],
        mode: "slow",
        note: HTML,
      });
      const answer = turn.getByTestId("agent-text").last();
      await expect(answer.innerText()).resolves.toBe(
        `{"trip":{"city":"Lyon","nights":3},"tags":["food","art"],"mode":"slow"}\n${HTML}`,
      );
      expect(await page.locator(".turn img, .turn script, .turn strong").count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
      await page.screenshot({ path: "/tmp/rev2-studio.png", fullPage: true });
      dash.expectClean();
    },
  );

  it(
    "should show the server's refusal of a field with the field's path, and start nothing",
    { timeout: 60_000 },
    async () => {
      const server = await suite.serve({ app: echoApp() });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.getByLabel("Agent", { exact: true }).selectOption("echo_input");
      await page.locator("#agent-echo_input_trip_city").fill("Atlantis");
      await page.locator("#agent-echo_input_trip_nights").fill("2");
      await page.locator("#agent-echo_input_mode").selectOption({ label: "fast" });
      await page.getByRole("button", { name: "Run", exact: true }).click();
      const turn = page.locator(".turn").first();
      await turn.getByText("/trip/city").waitFor();
      await expect(turn.innerText()).resolves.toContain(
        'BAD_USER_INPUT: invalid input for agent "echo_input": /trip/city: is not a city one can travel to',
      );
      expect(await server.rt.db.agentRun.count()).toBe(0);
      dash.expectClean();
    },
  );

  it(
    "should keep a very long answer inside the conversation, wrapped, not widening the page",
    { timeout: 60_000 },
    async () => {
      await suite.serve({ app: echoApp() });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.getByLabel("Agent", { exact: true }).selectOption("echo_input");
      await page.locator("#agent-echo_input_trip_city").fill("Lyon");
      await page.locator("#agent-echo_input_trip_nights").fill("2");
      await page.locator("#agent-echo_input_mode").selectOption({ label: "fast" });
      const long = `${"x".repeat(3000)} ${"word ".repeat(2000)}`.trim();
      await page.locator("#agent-echo_input_note").fill(long);
      await page.getByRole("button", { name: "Run", exact: true }).click();
      const turn = page.locator(".turn").first();
      await turn.and(page.locator("[data-final=MessageFinal]")).waitFor({ timeout: 30_000 });
      await expect(turn.getByTestId("agent-text").last().innerText()).resolves.toContain(long);
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        view: window.innerWidth,
      }));
      expect(widths.page).toBeLessThanOrEqual(widths.view);
      dash.expectClean();
    },
  );
});
