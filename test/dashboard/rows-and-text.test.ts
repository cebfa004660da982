import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { until } from "../graphql/support.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id } }`;

/** A description as a hostile author would write it, with Markdown worth rendering around the attacks. */
const HOSTILE = [
  "**Bold words** and _emphasis_ with `inline code`.",
  "",
  "- first item",
  "- second item",
  "",
  "```",
  "const block = 1;",
  "```",
  "",
  "<img src=x onerror=\"window.pwned='img'\"> <script>window.pwned='script'</script>",
  "[click me](javascript:window.pwned='link') [data](data:text/html,hi) ![remote](https://images.example.com/x.png)",
  "[the site](https://example.com/docs) and [mail us](mailto:ops@example.com)",
].join("\n");

describe.skipIf(!present)(
  "rows that open runs, clamped previews and Markdown descriptions, in headless Chromium",
  () => {
    const suite = dashboardSuite();

    it("should open a run from anywhere on its row, by click and by Enter on the row's link, the tool link still its own", async () => {
      const server = await suite.serve();
      const dash = await suite.open("/dashboard#/runs");
      const { page } = dash;
      await until("the page to subscribe to runEvents", () => server.rt.bus.listenerCount("runEvent") >= 1);
      const first = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "echo", input: { text: "a" } }))
        .data!.dispatch;
      const second = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "echo", input: { text: "b" } }))
        .data!.dispatch;
      const row = page.locator(`tr[data-run="${first.id}"]`);
      await row.waitFor();
      // The "Took" cell holds no link of its own: a click there, as a person makes it, lands on the row's link.
      const took = (await row.locator("td").last().boundingBox())!;
      await page.mouse.click(took.x + took.width / 2, took.y + took.height / 2);
      await page.getByTestId("run-detail").waitFor();
      expect(await page.evaluate(() => location.hash)).toBe(`#/runs/${first.id}`);
      await dash.screenshot("rows-run-opened-by-row");

      await page.getByRole("link", { name: "← Runs" }).click();
      const link = page.locator(`tr[data-run="${second.id}"] a.row-link`);
      await link.focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/runs/${second.id}`);

      await page.goto(`${server.origin}/dashboard#/runs`);
      await page.locator(`tr[data-run="${first.id}"] a[href="#/tools/echo"]`).click();
      await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/tools/echo");
      dash.expectClean();
    });

    it("should open a span's run from anywhere on the span's row, its Attributes button still its own", async () => {
      const server = await suite.serve();
      const admin = await server.rt.keys.create("ops", "ADMIN");
      const doc = { extensions: { echo: ["monitor"] } };
      await server.gql(
        `mutation($d: JSONObject!) { putManifest(input: { name: "traced", document: $d }) { name } }`,
        {
          d: doc,
        },
        admin,
      );
      await server.gql(`mutation { activateManifest(name: "traced") { active } }`, {}, admin);
      const run = (
        await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "echo_monitor", input: { text: "t" } }, admin)
      ).data!.dispatch;
      const dash = await suite.open("/dashboard#/spans");
      const { page } = dash;
      await page.evaluate((key) => sessionStorage.setItem("tai42.apiKey", key), admin);
      await page.reload();
      const row = page.getByTestId("span-table").locator("tr[data-status=SUCCEEDED]");
      // The row's own button stays above its link: it opens the span's attributes, not the run.
      await row.getByRole("button", { name: "Attributes" }).click();
      await page.locator("tr.detail-row").waitFor();
      expect(await page.evaluate(() => location.hash)).toBe("#/spans");
      const started = (await row.locator("td").nth(3).boundingBox())!;
      await page.mouse.click(started.x + started.width / 2, started.y + started.height / 2);
      await page.getByTestId("run-detail").waitFor();
      expect(await page.evaluate(() => location.hash)).toBe(`#/runs/${run.id}`);
      dash.expectClean();
    });

    it("should clamp a catalog description to two lines at word boundaries with an ellipsis, the whole text on hover", async () => {
      const server = await suite.serve();
      const admin = await server.rt.keys.create("ops", "ADMIN");
      const dash = await suite.open("/dashboard#/composition");
      const { page } = dash;
      await page.evaluate((key) => sessionStorage.setItem("tai42.apiKey", key), admin);
      await page.reload();
      await page.getByRole("tab", { name: "Extension catalog" }).click();
      const preview = page.locator("[data-extension=ask_external] [data-testid=clamped]");
      const shape = await preview.evaluate((el) => {
        const style = getComputedStyle(el);
        return {
          whiteSpace: style.whiteSpace,
          lines: Math.round(el.getBoundingClientRect().height / parseFloat(style.lineHeight)),
          clamped: el.scrollHeight > el.clientHeight,
          clamp: style.webkitLineClamp,
          title: el.getAttribute("title"),
          text: el.textContent,
        };
      });
      // A button's nowrap had kept it on one line, cut at the panel's edge mid-word with no ellipsis.
      expect(shape).toMatchObject({ whiteSpace: "normal", lines: 2, clamped: true, clamp: "2" });
      expect(shape.title).toBe(shape.text);
      expect(shape.title).toMatch(/^Turn a callback-URL tool into an external interaction: .+\.$/);
      await dash.screenshot("rows-catalog-clamped");
      dash.expectClean();
    });

    it("should render a description's Markdown (bold, lists, code, safe links) and leave its raw HTML, scripts and javascript: links inert", async () => {
      const app = new App();
      app.tool({ name: "hostile", description: HOSTILE, input: z.object({}) }, async () => ({ ok: true }));
      await suite.serve({ app });
      const dash = await suite.open("/dashboard#/tools/hostile");
      const { page } = dash;
      const md = page.getByRole("region", { name: "Tool hostile" }).getByTestId("markdown");
      await md.waitFor();
      await expect(md.locator("strong").innerText()).resolves.toBe("Bold words");
      await expect(md.locator("em").innerText()).resolves.toBe("emphasis");
      await expect(md.locator("ul > li").allInnerTexts()).resolves.toEqual(["first item", "second item"]);
      await expect(md.locator("p code").innerText()).resolves.toBe("inline code");
      await expect(md.locator("pre code").innerText()).resolves.toContain("const block = 1;");
      // Raw HTML is text; no element of it was made, nothing ran, nothing was fetched.
      expect(await md.locator("img, script, iframe, [onerror]").count()).toBe(0);
      await expect(md.innerText()).resolves.toContain(`<img src=x onerror="window.pwned='img'">`);
      await expect(md.innerText()).resolves.toContain("<script>window.pwned='script'</script>");
      expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
      // Only http(s) and mailto links are links, each opening a new tab without the opener; an image is never drawn
      // (nor fetched), its address a link like any other.
      const links = await md
        .locator("a")
        .evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.getAttribute("rel"), a.getAttribute("target")]));
      expect(links).toEqual([
        ["https://images.example.com/x.png", "noopener noreferrer", "_blank"],
        ["https://example.com/docs", "noopener noreferrer", "_blank"],
        ["mailto:ops@example.com", "noopener noreferrer", "_blank"],
      ]);
      await expect(md.innerText()).resolves.toContain("[click me](javascript:window.pwned='link')");
      // The list's preview is the description's words, without Markdown marks.
      const preview = page.locator("[data-tool=hostile] [data-testid=clamped]");
      await expect(preview.innerText()).resolves.toMatch(/^Bold words and emphasis with inline code\. first item/);
      await dash.screenshot("rows-markdown-hostile");
      dash.expectClean();
    });
  },
);
