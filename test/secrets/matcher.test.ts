import { describe, expect, it } from "vitest";
import { fold, mergeIntervals, PatternIndex } from "../../src/secrets/matcher.ts";

const indexOf = (...patterns: string[]) => {
  const index = new PatternIndex();
  patterns.forEach((p) => index.add(p));
  return index;
};

describe("the pattern index", () => {
  it("should find patterns at the start, in the middle and at the very end of a text", () => {
    const index = indexOf("abcd", "wxyz1");
    expect(index.intervals(fold("abcd"))).toEqual([[0, 4]]);
    expect(index.intervals(fold("..abcd..WXYZ1"))).toEqual([
      [2, 6],
      [8, 13],
    ]);
  });

  it("should keep a pattern two values share until both removed it", () => {
    const index = indexOf("shared-form", "shared-form");
    index.remove("shared-form");
    expect(index.intervals(fold("a shared-form"))).toEqual([[2, 13]]);
    index.remove("shared-form");
    expect(index.intervals(fold("a shared-form"))).toEqual([]);
    expect(index.size).toBe(0);
  });

  it("should report the longest pattern left after removals", () => {
    const index = indexOf("abcd", "abcdefgh");
    expect(index.longest()).toBe(8);
    index.remove("abcdefgh");
    expect(index.longest()).toBe(4);
  });

  it("should fold case without changing the length of a text", () => {
    expect(fold("ÄÖÜ-Straße-ΣΑΣ")).toBe("äöü-straße-σασ");
    const odd = "İstanbul"; // its lower case is two characters: it stays as it is
    expect(fold(odd)).toHaveLength(odd.length);
    expect(indexOf("ÄRGER-1").intervals(fold("x ärger-1 y"))).toEqual([[2, 9]]);
  });

  it("should merge overlapping and adjacent intervals from several lists", () => {
    expect(
      mergeIntervals([
        [
          [0, 4],
          [10, 12],
        ],
        [
          [3, 6],
          [12, 14],
          [20, 24],
        ],
      ]),
    ).toEqual([
      [0, 6],
      [10, 14],
      [20, 24],
    ]);
  });
});
