import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/agent/providers/demo-script.ts";
import { ScriptedModel } from "../../src/agent/providers/scripted-model.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { tripApp } from "./modules/trip-agent.ts";

const present = await chromiumPresent();

/** The model's pace in the live test: one streamed part every 100 ms. */
const CHUNK_MS = 100;

describe.skipIf(!present)("the Studio (the dashboard's agent console), in headless Chromium", () => {
  const suite = dashboardSuite();

  it(
    "should run a second agent from its own input fields, stop on its approval gate, and show its answer once approved",
    { timeout: 90_000 },
    async () => {
      const server = await suite.serve({ app: tripApp() });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.getByLabel("Agent", { exact: true }).selectOption("trip_planner");
      await page.getByTestId("not-composable").waitFor();
      await expect(page.getByTestId("agent-description").innerText()).resolves.toContain("Plans a trip");
      // Not specRunnable: none of the tools agent's controls, no message box; its own fields instead.
      for (const control of ["use kv_put", "approve kv_put calls", "System message", "Message"])
        expect(await page.getByLabel(control, { exact: true }).count(), control).toBe(0);
      await page.locator("#agent-trip_planner_city").fill("Lyon");
      await page.locator("#agent-trip_planner_nights").fill("3");
      await dash.screenshot("studio-second-agent");

      await page.getByRole("button", { name: "Run", exact: true }).click();
      const interrupt = page.getByTestId("interrupt");
      await interrupt.waitFor();
      await expect(interrupt.innerText()).resolves.toMatch(/kv_put[\s\S]*"trip"[\s\S]*"Lyon for 3 nights"/);
      const first = page.locator(".turn").nth(0);
      await expect(first.locator(".bubble.user").innerText()).resolves.toBe("city: Lyon · nights: 3");
      const paused = (await server.rt.agents.store.get((await first.getAttribute("data-run"))!))!;
      expect({
        agent: paused.agent,
        status: paused.status,
        city: paused.input.city,
        nights: paused.input.nights,
      }).toEqual({
        agent: "trip_planner",
        status: "INTERRUPTED",
        city: "Lyon",
        nights: 3,
      });
      expect(paused.input).not.toHaveProperty("toolNames");
      expect(await server.rt.db.kvEntry.count()).toBe(0);

      await interrupt.getByRole("button", { name: "Approve" }).click();
      const resumed = page.locator(".turn").nth(1);
      await resumed.and(page.locator("[data-streaming=no]")).waitFor({ timeout: 30_000 });
      await expect(resumed.getAttribute("data-final")).resolves.toBe("MessageFinal");
      await expect(resumed.locator("[data-testid=tool-step][data-tool=kv_put]").innerText()).resolves.toContain("done");
      await expect(resumed.getByTestId("agent-text").last().innerText()).resolves.toContain("Here is what I found");
      const done = (await server.rt.agents.store.get((await resumed.getAttribute("data-run"))!))!;
      expect({ agent: done.agent, status: done.status }).toEqual({ agent: "trip_planner", status: "SUCCEEDED" });
      expect((await server.rt.db.kvEntry.findUnique({ where: { key: "trip" } }))?.value).toBe("Lyon for 3 nights");
      dash.expectClean();
    },
  );

  it(
    "should refuse to run the second agent until its required fields are filled, and start nothing",
    { timeout: 60_000 },
    async () => {
      const server = await suite.serve({ app: tripApp() });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.getByLabel("Agent", { exact: true }).selectOption("trip_planner");
      await page.locator("#agent-trip_planner_city").fill("Lyon");
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.locator(".agent-input .error-detail").first().waitFor();
      expect(await page.locator(".turn").count()).toBe(0);
      expect(await server.rt.db.agentRun.count()).toBe(0);
      dash.expectClean();
    },
  );

  it(
    "should show the answer's text growing on the page while the model writes it, at 100 ms per chunk",
    { timeout: 90_000 },
    async () => {
      const server = await suite.serve();
      server.rt.agents.providers.register({
        name: "scripted",
        description: "the demo model at 100 ms per chunk",
        configured: () => true,
        create: () => new ScriptedModel(demoScript, { chunkDelayMs: CHUNK_MS }),
      });
      const dash = await suite.open("/dashboard#/agents");
      const { page } = dash;
      await page.getByLabel("Message", { exact: true }).waitFor();
      // Every change of the page is seen: the latest run's answer text, its length and when, until its terminal shows.
      await page.evaluate(() => {
        const seen: { length: number; at: number }[] = [];
        (window as unknown as { answerLengths: typeof seen }).answerLengths = seen;
        new MutationObserver(() => {
          const turn = [...document.querySelectorAll(".turn")].at(-1);
          if (!turn || turn.getAttribute("data-final")) return;
          const length = [...turn.querySelectorAll("[data-testid=agent-text]")]
            .map((e) => e.textContent ?? "")
            .join("").length;
          if (length && seen.at(-1)?.length !== length) seen.push({ length, at: performance.now() });
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      });
      await page.getByLabel("Message", { exact: true }).fill("Tell me about the weather on the moon");
      await page.getByRole("button", { name: "Send" }).click();
      const turn = page.locator(".turn").first();
      await turn.and(page.locator("[data-final=MessageFinal]")).waitFor({ timeout: 60_000 });

      const seen = await page.evaluate(
        () => (window as unknown as { answerLengths: { length: number; at: number }[] }).answerLengths,
      );
      const lengths = new Set(seen.map((s) => s.length));
      expect(
        lengths.size,
        `answer lengths seen before MessageFinal: ${[...lengths].join(", ")}`,
      ).toBeGreaterThanOrEqual(5);
      // While the model writes: the lengths grew over at least three of its chunks, not in one burst at the end.
      expect(seen.at(-1)!.at - seen[0].at).toBeGreaterThanOrEqual(3 * CHUNK_MS);
      const runId = (await turn.getAttribute("data-run"))!;
      const stored = await server.rt.agents.store.get(runId);
      const final = stored!.final as { text: string } | null;
      await expect(turn.getByTestId("agent-text").innerText()).resolves.toBe(final!.text);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(final!.text.length);
      dash.expectClean();
    },
  );
});
