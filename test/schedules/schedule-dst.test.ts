import { describe, expect, it } from "vitest";
import { latestTick, nextTick } from "../../src/schedules/schedule-record.ts";

/** The ticks of `cron` in `zone` from `from` (exclusive) up to `to`, as ISO instants. */
function ticks(cron: string, zone: string, from: string, to: string): string[] {
  const out: string[] = [];
  let at = new Date(from);
  for (;;) {
    const next = nextTick(cron, zone, at);
    if (!next || next > new Date(to)) return out;
    out.push(next.toISOString());
    at = next;
  }
}

/** Ticks across a change of the clock (docs/run-lifecycle.md §11.7). */
describe("schedule ticks across daylight-saving changes", () => {
  it("should fire an hourly schedule in both 02:00 CEST and 02:00 CET when Berlin falls back", () => {
    expect(ticks("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z", "2026-10-25T03:00:00Z")).toEqual([
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T02:00:00.000Z",
      "2026-10-25T03:00:00.000Z",
    ]);
  });

  it("should keep a quarter-hour schedule's interval through Berlin's repeated hour", () => {
    const got = ticks("*/15 * * * *", "Europe/Berlin", "2026-10-24T23:50:00Z", "2026-10-25T02:15:00Z");
    const times = got.map((t) => Date.parse(t));
    expect(got[0]).toBe("2026-10-25T00:00:00.000Z");
    expect(got.at(-1)).toBe("2026-10-25T02:15:00.000Z");
    expect(times.slice(1).every((t, i) => t - times[i]! === 15 * 60_000)).toBe(true);
  });

  it("should keep a half-hour schedule's interval when New York falls back", () => {
    expect(ticks("*/30 * * * *", "America/New_York", "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z")).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T06:30:00.000Z",
      "2026-11-01T07:00:00.000Z",
    ]);
  });

  it("should fire a fixed-time schedule once on the day its hour repeats", () => {
    expect(ticks("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z")).toEqual([
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
    ]);
  });

  it("should skip the missing hour when Berlin springs forward, as before", () => {
    expect(ticks("0 * * * *", "Europe/Berlin", "2026-03-29T00:30:00Z", "2026-03-29T02:00:00Z")).toEqual([
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T02:00:00.000Z",
    ]);
  });

  it("should answer the repeated hour's tick as the latest one inside it", () => {
    expect(latestTick("0 * * * *", "Europe/Berlin", new Date("2026-10-25T01:30:00Z"))?.toISOString()).toBe(
      "2026-10-25T01:00:00.000Z",
    );
    expect(latestTick("0 * * * *", "Europe/Berlin", new Date("2026-10-25T00:59:59Z"))?.toISOString()).toBe(
      "2026-10-25T00:00:00.000Z",
    );
    expect(latestTick("30 2 * * *", "Europe/Berlin", new Date("2026-10-25T01:45:00Z"))?.toISOString()).toBe(
      "2026-10-25T00:30:00.000Z",
    );
  });
});
