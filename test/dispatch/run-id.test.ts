import { describe, expect, it } from "vitest";
import { newRunId } from "../../src/dispatch/run-id.ts";

describe("newRunId", () => {
  it("should make a UUID version 7 (RFC 9562) whose first 48 bits are the time in milliseconds", () => {
    const at = Date.UTC(2026, 10, 30, 12, 0, 0, 123);
    const id = newRunId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it("should sort ids made in later milliseconds after earlier ones, and never repeat", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => newRunId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) expect(ids[i] > ids[i - 1]).toBe(true);
  });
});
