import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";
import { echoApp } from "./modules/echo-agent.ts";

const present = await chromiumPresent();

describe.skipIf(!present)(
  "the agent console for an anonymous caller given READER (TAI_ANONYMOUS_ROLE), in headless Chromium",
  () => {
    const suite = dashboardSuite();

    it(
      "should offer a tab with no key only the read-tier tools, as for a READER key, and start the run with those alone",
      { timeout: 90_000 },
      async () => {
        const server = await suite.serve({ app: echoApp(), config: { anonymousRole: "READER" } });
        const dash = await suite.open("/dashboard#/agents");
        const { page } = dash;
        await page.getByTestId("viewer-role").filter({ hasText: "READER" }).waitFor();
        await page.getByLabel("Message", { exact: true }).waitFor();
        await expect(page.getByLabel("use clock", { exact: true }).isDisabled()).resolves.toBe(false);
        for (const tool of ["kv_put", "admin_stats", "sign_message"])
          await expect(page.getByLabel(`use ${tool}`, { exact: true }).count(), tool).resolves.toBe(0);
        await expect(page.getByTestId("withheld-tools").innerText()).resolves.toMatch(/^3 tools are not offered/);
        await dash.screenshot("agents-anonymous-reader");
        await page.getByLabel("Message", { exact: true }).fill("What time is it?");
        await page.getByRole("button", { name: "Send" }).click();
        const turn = page.locator(".turn").first();
        await turn.and(page.locator("[data-streaming=no]")).waitFor({ timeout: 30_000 });
        const run = (await server.rt.agents.store.get((await turn.getAttribute("data-run"))!))!;
        expect({ toolNames: run.input.toolNames, callerKey: run.callerKey, callerRole: run.callerRole }).toEqual({
          toolNames: ["calculate", "clock", "kv_get"],
          callerKey: null,
          callerRole: "READER",
        });
        expect(run.status).toBe("SUCCEEDED");
        dash.expectClean();
      },
    );
  },
);
