import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format, promisify } from "node:util";
import { chromium } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type ServerUnderTest } from "../client/support.ts";
import { testRunDir } from "../helpers/databases.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOC_URL = "http://localhost:4000/graphql";
const CHROMIUM = "/usr/bin/chromium";

/**
 * One runnable example: a ts block whose first line is `// node` or `// browser`, with the text block after it (and,
 * for a browser, the html block before it).
 */
interface Example {
  kind: "node" | "browser";
  code: string;
  expected: string;
  html: string;
  line: number;
}

function examples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    body: m[2],
    line: markdown.slice(0, m.index).split("\n").length,
  }));
  const out: Example[] = [];
  blocks.forEach((block, i) => {
    const kind = block.lang === "ts" ? /^\/\/ (node|browser)\n/.exec(block.body)?.[1] : undefined;
    if (!kind) return;
    const next = blocks[i + 1];
    if (next?.lang !== "text") throw new Error(`the ${kind} example at line ${block.line} has no text block after it`);
    const html = kind === "browser" ? blocks[i - 1] : undefined;
    if (kind === "browser" && html?.lang !== "html")
      throw new Error(`the browser example at line ${block.line} has no html block before it`);
    out.push({
      kind: kind as Example["kind"],
      code: block.body,
      expected: next.body.trimEnd(),
      html: html?.body ?? "",
      line: block.line,
    });
  });
  return out;
}

const doc = readFileSync(new URL("../../docs/client.md", import.meta.url), "utf8");
const all = examples(doc);
const dir = join(testRunDir(), "docs-client");
const fileOf = (ex: Example) => join(dir, `${ex.kind}-example-${ex.line}.ts`);

describe("docs/client.md", () => {
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ extends: join(ROOT, "tsconfig.json"), compilerOptions: { noEmit: true }, include: ["*.ts"] }),
    );
    for (const ex of all) writeFileSync(fileOf(ex), ex.code);
  });

  it("should have node and browser examples", () => {
    expect(all.filter((e) => e.kind === "node").length).toBeGreaterThanOrEqual(4);
    expect(all.filter((e) => e.kind === "browser")).toHaveLength(1);
  });

  it("should type-check every example", async () => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const r = await promisify(execFile)(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { cwd: ROOT }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    expect(`${r.stdout}${r.stderr}`).toBe("");
  }, 60_000);

  for (const ex of all.filter((e) => e.kind === "node")) {
    it(`should print what the node example at line ${ex.line} says`, async () => {
      const server = await startServer();
      const printed: string[] = [];
      const log = vi
        .spyOn(console, "log")
        .mockImplementation((...args: unknown[]) => void printed.push(format(...args)));
      try {
        process.env.TAI_KEY = await server.rt.keys.create("docs", "USER");
        const file = fileOf(ex).replace(/\.ts$/, ".run.ts");
        writeFileSync(file, ex.code.replaceAll(DOC_URL, server.url));
        await import(pathToFileURL(file).href);
      } finally {
        log.mockRestore();
        delete process.env.TAI_KEY;
        await server.stop();
      }
      expect(printed.join("\n")).toBe(ex.expected);
    }, 30_000);
  }

  const browserExamples = all.filter((e) => e.kind === "browser");
  const chromiumPresent = existsSync(CHROMIUM);
  if (!chromiumPresent && process.env.CI === "true")
    throw new Error(`${CHROMIUM} is required under CI=true (apt-get install chromium)`);

  describe.skipIf(!chromiumPresent)("in headless Chromium", () => {
    let browser: Awaited<ReturnType<typeof chromium.launch>>;
    let server: ServerUnderTest;
    beforeAll(async () => {
      // The page is served by the test (route.fulfill), so Chromium cannot tell it comes from
      // the loopback server: its local-network checks would then refuse the page's WebSocket.
      const args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-features=LocalNetworkAccessChecks",
      ];
      browser = await chromium.launch({ executablePath: CHROMIUM, args, timeout: 30_000 });
      server = await startServer();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await server?.stop();
    });

    for (const ex of browserExamples) {
      it(`should show what the browser example at line ${ex.line} says, bundled and run on a page of the server's origin`, async () => {
        const bundle = await bundleForBrowser(fileOf(ex));
        const origin = new URL(server.url).origin;
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        // Offline: the page reaches only the server; its own two files are served here.
        await page.route(/^(?!(http|ws):\/\/127\.0\.0\.1:)(?!data:|blob:)/, (route) => route.abort());
        await page.route(`${origin}/example`, (route) =>
          route.fulfill({
            contentType: "text/html",
            body: `<!doctype html><meta charset="utf-8"><body>${ex.html}<script type="module" src="/example.js"></script></body>`,
          }),
        );
        await page.route(`${origin}/example.js`, (route) =>
          route.fulfill({ contentType: "text/javascript", body: bundle }),
        );
        await page.goto(`${origin}/example`);
        const shown = () => page.evaluate(() => document.body.innerText.trim());
        await page
          .waitForFunction((expected) => document.body.innerText.trim() === expected, ex.expected, { timeout: 15_000 })
          .catch(() => {});
        expect({ shown: await shown(), errors }).toEqual({ shown: ex.expected, errors: [] });
        await page.close();
      }, 60_000);
    }
  });
});

/** Bundles a module and tai42/client (its sources) for the browser, as an app's bundler would. */
async function bundleForBrowser(entry: string): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: "silent",
    root: ROOT,
    resolve: { alias: [{ find: /^tai42\/client$/, replacement: join(ROOT, "src", "client", "index.ts") }] },
    build: { write: false, target: "esnext", minify: false, lib: { entry, formats: ["es"], fileName: "example" } },
  });
  const [output] = (Array.isArray(result) ? result : [result]) as { output: { type: string; code?: string }[] }[];
  return output.output.find((o) => o.type === "chunk")!.code!;
}
