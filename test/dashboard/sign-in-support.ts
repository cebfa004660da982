import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { startIssuer, type TestIssuer } from "../helpers/oidc-issuer.ts";
import { ARTIFACTS } from "./browser.ts";
import { freePort, startServer, type TestServer } from "./server.ts";

/** A server signing in through a real provider, its dashboard's client `tai-dashboard` redirecting to the server. */
export interface SignInWorld {
  issuer: TestIssuer;
  server: TestServer;
  close(): Promise<void>;
}

/**
 * Starts the provider and a server configured with it (TAI_IDENTITY: groups mapped to roles, a `dashboard` block) and
 * TAI_ANONYMOUS_ROLE=NONE: a tab that is not signed in may do nothing.
 */
export async function signInWorld(options: { accessTokenSeconds?: number } = {}): Promise<SignInWorld> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const issuer = await startIssuer({
    resource: origin,
    dashboardRedirects: [`${origin}/dashboard/`],
    accessTokenSeconds: options.accessTokenSeconds,
  });
  const identity = {
    resource: origin,
    clockSkewSeconds: 0,
    pollSeconds: 1,
    issuers: [
      {
        issuer: issuer.issuer,
        roleClaim: "groups",
        roles: { "tai-admins": "ADMIN", "tai-users": "USER", "tai-readers": "READER" },
        dashboard: { clientId: "tai-dashboard", scope: "openid profile offline_access tai" },
      },
    ],
  };
  const server = await startServer({
    port,
    env: { TAI_IDENTITY: JSON.stringify(identity), TAI_ANONYMOUS_ROLE: "NONE" },
    config: { anonymousRole: "NONE" },
  });
  return {
    issuer,
    server,
    async close() {
      await server.stop();
      await issuer.close();
    },
  };
}

/** A dashboard tab that may reach the server and the provider, and nothing else; its errors and requests. */
export interface SignInPage {
  page: Page;
  requests: string[];
  /** The token each graphql-ws connection of the page was opened with (connection_init), in order. */
  socketTokens: (string | null)[];
  errors: string[];
  screenshot(name: string): Promise<string>;
  /** What this tab keeps in sessionStorage and localStorage, as text. */
  storage(): Promise<{ session: string; local: string }>;
  /** The access token the tab holds now (null: none). */
  accessToken(): Promise<string | null>;
  expectClean(): void;
  close(): Promise<void>;
}

export async function openSignInPage(browser: Browser, world: SignInWorld, path = "/dashboard/"): Promise<SignInPage> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const allowed = [world.server.origin, world.issuer.issuer];
  const requests: string[] = [];
  const errors: string[] = [];
  await context.route(/.*/, (route) =>
    allowed.some((o) => route.request().url().startsWith(`${o}/`)) ? route.continue() : route.abort(),
  );
  await context.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content-Security-Policy violation: ${e.effectiveDirective} refused ${e.blockedURI}`),
    ),
  );
  // What the provider's own pages load or say (its login page asks for a web font) is not the dashboard's doing.
  const atDashboard = () => page.url().startsWith(`${world.server.origin}/`);
  page.on("request", (r) => atDashboard() && requests.push(r.url()));
  const socketTokens: (string | null)[] = [];
  page.on("websocket", (ws) => {
    requests.push(ws.url());
    ws.on("framesent", (f) => {
      const init = /^\{"type":"connection_init"/.test(String(f.payload));
      if (init) socketTokens.push(/"Bearer ([^"]+)"/.exec(String(f.payload))?.[1] ?? null);
    });
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && atDashboard()) errors.push(`console: ${m.text()}`);
  });
  await page.goto(`${world.server.origin}${path}`);
  const storage = () =>
    page.evaluate(() => ({
      session: JSON.stringify({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
    }));
  return {
    page,
    requests,
    socketTokens,
    errors,
    async screenshot(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      const path = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    storage,
    accessToken: () =>
      page.evaluate(
        () =>
          (JSON.parse(sessionStorage.getItem("tai42.signIn") ?? "null") as { accessToken: string } | null)
            ?.accessToken ?? null,
      ),
    expectClean() {
      const ws = world.server.origin.replace(/^http/, "ws");
      const offsite = requests.filter((u) => ![...allowed, ws].some((o) => u.startsWith(`${o}/`)));
      expect(offsite, "requests that left the server and the provider").toEqual([]);
      expect(errors, "page errors and console errors").toEqual([]);
    },
    close: () => context.close(),
  };
}

/** Clicks "Sign in with <provider>" and fills the provider's login form as `account`, back at the dashboard. */
export async function signInAs(dash: SignInPage, world: SignInWorld, account: string): Promise<void> {
  const { page } = dash;
  await page.getByRole("button", { name: `Sign in with ${new URL(world.issuer.issuer).host}` }).click();
  await page.waitForURL((u) => u.href.startsWith(`${world.issuer.issuer}/`));
  await page.locator("input[name=login]").fill(account);
  await page.locator("input[name=password]").fill("any");
  await page.locator("button[type=submit]").first().click();
  // The provider asks for consent to the resource's scope once; the way back ends at the dashboard.
  const back = (u: URL) => u.href.startsWith(`${world.server.origin}/dashboard/`);
  const consent = page.getByRole("button", { name: "Continue" });
  await Promise.race([page.waitForURL(back), consent.waitFor()]);
  if (!back(new URL(page.url()))) await consent.click();
  await page.waitForURL((u) => back(u) && !u.search);
}
