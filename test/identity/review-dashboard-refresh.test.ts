import { describe, expect, it } from "vitest";
import { refreshDelay } from "../../src/dashboard/sign-in/tokens.ts";

/** Review (issue 31, dashboard sign-in): the refresh timer of a long-lived access token. */

const DAY = 86_400_000;

describe("the dashboard's refresh delay", () => {
  it("should never exceed what setTimeout can wait, so a token living 30 days is not refreshed at once in a loop", () => {
    const now = Date.now();
    const wait = refreshDelay(
      { issuer: "https://id.example", accessToken: "t", issuedAt: now, expiresAt: now + 30 * DAY },
      now,
    );
    expect(wait).not.toBeNull();
    expect(wait!).toBeGreaterThan(20 * DAY);
    expect(wait!).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it("should still refresh a short token a minute before it expires", () => {
    const now = Date.now();
    const wait = refreshDelay(
      { issuer: "https://id.example", accessToken: "t", issuedAt: now, expiresAt: now + 3_600_000 },
      now,
    );
    expect(wait).toBe(3_600_000 - 60_000);
  });
});
