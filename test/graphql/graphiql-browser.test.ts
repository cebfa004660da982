import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { z } from "zod";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { chromiumPresent, launchChromium } from "../helpers/chromium.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "./support.ts";

const SCREENSHOT = "/tmp/graphiql.png";

const present = await chromiumPresent();

describe.skipIf(!present)("GraphiQL in a real headless Chromium", () => {
  let browser: Browser;
  let rt: TestRuntime | undefined;
  let app: TaiServer | undefined;
  let page: Page | undefined;
  const offsite: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(): Promise<{ url: string; page: Page }> {
    rt = await testRuntime();
    app = buildApp(rt);
    const url = await app.start(0, "127.0.0.1");
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(20_000);
    // This machine is offline: a request that leaves the server would hang or fail, so
    // any is recorded and refused at once.
    await page.route(/^(?!(http|ws):\/\/127\.0\.0\.1:)(?!data:|blob:)/, (route) => {
      offsite.push(route.request().url());
      return route.abort();
    });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    return { url, page };
  }

  /** GraphiQL's query editor, once it is on screen. */
  async function editorOf(page: Page) {
    const editor = page.locator(".graphiql-query-editor .monaco-editor").first();
    await editor.waitFor({ state: "visible" }).catch((e: Error) => {
      throw new Error(
        `GraphiQL's editor did not appear (${e.message.split("\n")[0]}); requests that tried to leave the machine: ${offsite.join(", ") || "none"}`,
      );
    });
    return editor;
  }

  afterEach(async () => {
    await page?.close();
    await app?.stop();
    await rt?.dispose();
    page = app = rt = undefined;
    offsite.length = 0;
    pageErrors.length = 0;
  });

  it("should load GraphiQL at /graphql, show the editor and run { viewer { role } } to a result, offline", async () => {
    const { url, page } = await open();
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("tai42 GraphiQL");

    const editor = await editorOf(page);
    await editor.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    // insertText does not go through the editor's bracket auto-closing, unlike typing.
    await page.keyboard.insertText("{ viewer { role } }");
    await page.locator(".graphiql-execute-button").click();

    const response = page.locator(".graphiql-response");
    await until("the result to show", async () => /"role":\s*"USER"/.test(await response.innerText()), 20_000);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(await response.innerText()).toMatch(/"viewer":\s*\{\s*"role":\s*"USER"/);
    expect(offsite).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("should run a subscription over graphql-ws from the page and show live events", async () => {
    const { url, page } = await open();
    await page.goto(`${url}?query=${encodeURIComponent("subscription { toolsChanged { name } }")}`);
    await editorOf(page);
    await page.locator(".graphiql-execute-button").click();
    await until(
      "the page's subscription to reach the server",
      () => rt!.bus.listenerCount("toolsChanged") === 1,
      20_000,
    );
    rt!.app.tool(
      { name: "from_the_browser_test", description: "Registered while GraphiQL listens.", input: z.object({}) },
      () => "ok",
    );
    const response = page.locator(".graphiql-response");
    await until(
      "the live event to show",
      async () => (await response.innerText()).includes("from_the_browser_test"),
      20_000,
    );
    expect(offsite).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("should run a subscription as the key typed in the Headers tab, over graphql-ws", async () => {
    const { url, page } = await open();
    const key = await rt!.keys.create("graphiql-admin", "ADMIN");
    const admin = (await rt!.keys.verify(key))!;
    const run = await rt!.dispatcher.run({
      tool: "echo",
      input: { text: "the admin's" },
      caller: admin,
      door: "runtime",
    });
    await page.goto(
      `${url}?query=${encodeURIComponent(`subscription { runEvents(runId: "${run.id}", afterSeq: 0) { type run { id } } }`)}`,
    );
    await editorOf(page);
    const response = page.locator(".graphiql-response");

    // As the anonymous caller (USER on loopback), the admin's run does not exist.
    await page.locator(".graphiql-execute-button").click();
    await until(
      "the anonymous refusal to show",
      async () => (await response.innerText()).includes("NOT_FOUND"),
      20_000,
    );

    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    const headers = page.locator('.graphiql-editor-tool .monaco-editor[data-uri$="headers.json"]');
    await headers.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${key}` }));
    await page.locator(".graphiql-execute-button").click();
    await until(
      "the admin's replayed events to show",
      async () => (await response.innerText()).includes("RUN_FINISHED"),
      20_000,
    );
    expect(await response.innerText()).toContain(run.id);
    expect(offsite).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("should run the query given in the page URL", async () => {
    const { url, page } = await open();
    await page.goto(`${url}?query=${encodeURIComponent("query Who { viewer { role authenticated } }")}`);
    await editorOf(page);
    await page.locator(".graphiql-execute-button").click();
    const response = page.locator(".graphiql-response");
    await until("the result to show", async () => /"authenticated":\s*false/.test(await response.innerText()), 20_000);
    expect(offsite).toEqual([]);
  });
});
