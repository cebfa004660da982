import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { launchChromium } from "../helpers/chromium.ts";
import { startServer, type TestServer } from "./server.ts";

/** Where the dashboard tests leave their screenshots (git-ignored). */
export const ARTIFACTS = resolve(import.meta.dirname, "..", "..", "test-artifacts", "dashboard");

/** A dashboard page and what it did: every request it made, its page errors and console errors. */
export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  /** Every URL the page requested (documents, scripts, styles, fetches, WebSockets). */
  requests: string[];
  /** Uncaught exceptions, console errors and Content-Security-Policy violations (even ones the page caught). */
  errors: string[];
  /** Saves a full-page screenshot as test-artifacts/dashboard/<name>.png. */
  screenshot(name: string): Promise<void>;
  /** Asserts that nothing left the server and nothing failed on the page. */
  expectClean(): void;
  close(): Promise<void>;
}

/**
 * Opens `path` of the dashboard at `origin` in a fresh browser context (nothing kept
 * from another test: no sessionStorage, no cache). A request to any other origin is
 * recorded and refused at once (this machine is offline).
 */
export async function openDashboard(browser: Browser, origin: string, path = "/dashboard"): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const requests: string[] = [];
  const errors: string[] = [];
  const wsOrigin = origin.replace(/^http/, "ws");
  await context.route(/.*/, (route) =>
    route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort(),
  );
  // Chromium tells the console nothing of a refused eval the page caught (ajv, say, catches
  // its own): each violation is said as a console error, so expectClean() fails on it.
  await context.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content-Security-Policy violation: ${e.effectiveDirective} refused ${e.blockedURI}`),
    ),
  );
  page.on("request", (r) => requests.push(r.url()));
  page.on("websocket", (ws) => requests.push(ws.url()));
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  await page.goto(`${origin}${path}`);
  return {
    page,
    context,
    requests,
    errors,
    async screenshot(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    expectClean() {
      const offsite = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith(`${wsOrigin}/`));
      expect(offsite, "requests that left the server").toEqual([]);
      expect(errors, "page errors and console errors").toEqual([]);
    },
    close: () => context.close(),
  };
}

/** What a dashboard test suite gives its tests; everything is closed after each test. */
export interface DashboardSuite {
  /** Starts a real server (see {@link startServer}). */
  serve(options?: Parameters<typeof startServer>[0]): Promise<TestServer>;
  /** Opens `path` of the dashboard of the server the test started. */
  open(path?: string): Promise<DashboardPage>;
}

/**
 * Registers a browser test suite's hooks: one Chromium for the suite; after each test,
 * its page and server closed, and, when the test failed, a screenshot named after it and
 * the page's errors printed.
 */
export function dashboardSuite(): DashboardSuite {
  let browser: Browser;
  let server: TestServer | undefined;
  let dash: DashboardPage | undefined;
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
    await server?.stop();
    dash = server = undefined;
  });
  return {
    async serve(options) {
      server = await startServer(options);
      return server;
    },
    async open(path) {
      if (!server) throw new Error("start the test's server (suite.serve) before opening the dashboard");
      dash = await openDashboard(browser, server.origin, path);
      return dash;
    },
  };
}
