import { describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();

describe.skipIf(!present)("the dashboard's Content-Security-Policy, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should refuse code made from strings and inline script, each refusal a page error for the dashboard tests even when the page catches it", async () => {
    await suite.serve();
    const dash = await suite.open();
    await dash.page.locator("header.topbar").waitFor();
    expect(dash.errors).toEqual([]);

    // Code the test evaluates may eval (DevTools lifts the policy for it): what runs in a later task may not.
    const caught = await dash.page.evaluate(
      () =>
        new Promise<string>((resolve) =>
          setTimeout(() => {
            try {
              new Function("return 1")();
              resolve("ran");
            } catch (e) {
              resolve((e as Error).name);
            }
          }),
        ),
    );
    expect(caught).toBe("EvalError");
    await expect
      .poll(() => dash.errors)
      .toEqual(["console: Content-Security-Policy violation: script-src refused eval"]);
    dash.errors.length = 0;

    const ran = await dash.page.evaluate(() => {
      const w = window as unknown as Record<string, boolean>;
      document.head.append(Object.assign(document.createElement("script"), { textContent: "window.inlineRan = true" }));
      const button = document.createElement("button");
      button.setAttribute("onclick", "window.handlerRan = true");
      document.body.append(button);
      button.click();
      button.remove();
      return { inline: !!w.inlineRan, handler: !!w.handlerRan };
    });
    expect(ran).toEqual({ inline: false, handler: false });
    await expect
      .poll(() => dash.errors.filter((e) => e.startsWith("console: Content-Security-Policy violation")))
      .toEqual([
        "console: Content-Security-Policy violation: script-src-elem refused inline",
        "console: Content-Security-Policy violation: script-src-attr refused inline",
      ]);
  });
});
