import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { until } from "../graphql/support.ts";

/** Debian's Chromium: what the browser tests drive (through playwright-core). */
export const CHROMIUM = "/usr/bin/chromium";

/** Waits a bounded time for Debian's Chromium (it may still be installing); under CI=true its absence fails. */
export async function chromiumPresent(): Promise<boolean> {
  try {
    await until(`${CHROMIUM} to exist`, () => existsSync(CHROMIUM), 30_000);
    return true;
  } catch (e) {
    if (process.env.CI === "true")
      throw new Error(`${CHROMIUM} is required under CI=true (apt-get install chromium): ${(e as Error).message}`, {
        cause: e,
      });
    return false;
  }
}

/** Chromium, headless, with nothing of its own going to the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
    timeout: 30_000,
  });
}
