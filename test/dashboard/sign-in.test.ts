import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "../graphql/support.ts";
import { chromiumPresent, launchChromium } from "../helpers/chromium.ts";
import { openSignInPage, signInAs, signInWorld, type SignInPage, type SignInWorld } from "./sign-in-support.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("the dashboard signing in through an OpenID Connect provider, in headless Chromium", () => {
  let browser: Browser;
  let world: SignInWorld | undefined;
  let dash: SignInPage | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());
  afterEach(async (ctx) => {
    if (dash && ctx.task.result?.state === "fail") {
      await dash.screenshot(`failed-${ctx.task.name.slice(0, 50).replace(/\W+/g, "-")}`).catch(() => {});
      if (dash.errors.length) console.error(`page errors in "${ctx.task.name}":\n${dash.errors.join("\n")}`);
    }
    await dash?.close();
    await world?.close();
    dash = world = undefined;
  });

  it(
    "should sign bob in with the authorization code flow and PKCE, run a demo tool as him, and sign out to anonymous with no token left",
    { timeout: 120_000 },
    async () => {
      world = await signInWorld();
      dash = await openSignInPage(browser, world, "/dashboard/#/tools/echo");
      const { page } = dash;
      await page.getByTestId("viewer-role").filter({ hasText: "no access" }).waitFor();
      await dash.screenshot("sign-in-anonymous");

      await signInAs(dash, world, "bob");
      await page.getByTestId("viewer").filter({ hasText: "signed in as bob" }).waitFor();
      await page.getByTestId("viewer-role").filter({ hasText: "USER" }).waitFor();
      await expect(page.url()).toBe(`${world.server.origin}/dashboard/#/tools/echo`);
      const token = (await dash.accessToken())!;
      expect(token).toMatch(/^ey/);
      const kept = await dash.storage();
      expect(kept.local).not.toContain(token);
      await dash.screenshot("sign-in-bob");

      await page.getByLabel("text").fill("hello from bob");
      await page.getByRole("button", { name: "Run" }).click();
      await page.getByTestId("run-outcome").locator('[data-status="SUCCEEDED"]').waitFor();
      await expect(page.getByTestId("run-outcome").innerText()).resolves.toContain("hello from bob");
      const [run] = await world.server.rt.runs.list({ tool: "echo" }, 1);
      expect({ callerRole: run.callerRole, callerKey: run.callerKey }).toEqual({
        callerRole: "USER",
        callerKey: `oidc:${world.issuer.issuer}#bob`,
      });
      await dash.screenshot("sign-in-ran-echo");

      await page.getByRole("button", { name: "Sign out" }).click();
      // The provider asks whether to end its session too (RP-initiated logout), then sends the browser back.
      await page.waitForURL((u) => u.href.startsWith(`${world!.issuer.issuer}/`));
      await page.getByRole("button", { name: /yes, sign me out/i }).click();
      await page.waitForURL((u) => u.href.startsWith(`${world!.server.origin}/dashboard/`));
      await page.getByTestId("viewer-role").filter({ hasText: "no access" }).waitFor();
      await page.getByRole("button", { name: /^Sign in with/ }).waitFor();
      const after = await dash.storage();
      expect(after.session).not.toContain(token);
      expect(after.session).not.toContain("tai42.signIn");
      expect(after.local).toBe("{}");
      await dash.screenshot("sign-in-signed-out");
      dash.expectClean();
    },
  );

  it(
    "should refresh a short-lived access token before it expires and open its socket again with the new one",
    { timeout: 150_000 },
    async () => {
      world = await signInWorld({ accessTokenSeconds: 20 });
      dash = await openSignInPage(browser, world, "/dashboard/#/tools/echo");
      const { page } = dash;
      await signInAs(dash, world, "bob");
      await page.getByTestId("viewer-role").filter({ hasText: "USER" }).waitFor();
      const tokens = [(await dash.accessToken())!];
      // Refreshed at half its life (10 s), twice: by the third token the first has expired on the server (no skew).
      await until(
        "two refreshes",
        async () => {
          const t = await dash!.accessToken();
          if (t && !tokens.includes(t)) tokens.push(t);
          return tokens.length >= 3;
        },
        60_000,
      );
      // Each refresh moved the socket to the new token (the tools screen's subscription connected again on it).
      await until("a socket on the third token", () => dash!.socketTokens.includes(tokens[2]), 20_000);
      expect(dash.socketTokens.filter((t) => t !== null)).toEqual(
        expect.arrayContaining([tokens[0], tokens[1], tokens[2]]),
      );
      await expect(page.getByTestId("viewer-role").innerText()).resolves.toBe("USER");

      // A run from the form now: dispatched with the third token, followed live over the socket opened with it.
      await page.getByLabel("text").fill("after two refreshes");
      await page.getByRole("button", { name: "Run" }).click();
      await page.getByTestId("run-outcome").locator('[data-status="SUCCEEDED"]').waitFor();
      await expect(page.getByTestId("run-outcome").innerText()).resolves.toContain("after two refreshes");
      await dash.screenshot("sign-in-refreshed");
      dash.expectClean();
    },
  );
});
