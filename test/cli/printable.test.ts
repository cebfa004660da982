import { describe, expect, it } from "vitest";
import { printable } from "../../src/cli/printable.ts";

/**
 * What `tai check` prints of a name or a diagnostic (README §"tai check"): control characters written out, everything
 * else as it is.
 */
describe("printable", () => {
  it("should write C0 (ESC included), DEL, C1 and bidirectional overrides as \\u escapes", () => {
    expect(printable("a\u001b[2Jb\u0007c\u0000d\td\ne\u007ff\u009b31mg\u202eh\u2066i")).toBe(
      "a\\u001b[2Jb\\u0007c\\u0000d\\u0009d\\u000ae\\u007ff\\u009b31mg\\u202eh\\u2066i",
    );
  });

  it("should leave printable text, non-ASCII letters and emoji as they are", () => {
    expect(printable("tools/straße/日本語 🚀.ts:1:2 - error TS2307: Cannot find module './x'")).toBe(
      "tools/straße/日本語 🚀.ts:1:2 - error TS2307: Cannot find module './x'",
    );
  });
});
