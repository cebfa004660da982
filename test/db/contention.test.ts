import { describe, expect, it } from "vitest";
import { contentionError, DB_WAIT_MS, rethrowContention, TX } from "../../src/db/contention.ts";
import { ApiError } from "../../src/errors.ts";

const withCode = (code: string, message = "driver failure") => Object.assign(new Error(message), { code });

describe("contentionError: contention and outages as typed, retryable API errors", () => {
  it("should give CONFLICT for a write conflict or deadlock, at any depth of the cause chain", () => {
    for (const error of [
      withCode("P2034"),
      withCode("40001"),
      withCode("40P01"),
      new Error("wrapped", { cause: withCode("40P01") }),
    ]) {
      const e = contentionError(error);
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ code: "CONFLICT", retryable: true });
    }
  });

  it("should read codes from a driver adapter's metadata and its kind", () => {
    const prismaLike = Object.assign(new Error("query failed"), {
      meta: { driverAdapterError: { cause: { kind: "TransactionWriteConflict" } } },
    });
    expect(contentionError(prismaLike)).toMatchObject({ code: "CONFLICT" });
    const unreachable = Object.assign(new Error("query failed"), {
      meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } },
    });
    expect(contentionError(unreachable)).toMatchObject({ code: "UNAVAILABLE" });
  });

  it("should give UNAVAILABLE for a busy or unreachable database, by code or by the driver's words", () => {
    const errors = [
      withCode("SQLITE_BUSY"),
      withCode("P2028"),
      withCode("P2024"),
      withCode("57P01"),
      withCode("ECONNREFUSED"),
      new Error("timeout exceeded when trying to connect"),
      new Error("database is locked"),
    ];
    for (const error of errors) expect(contentionError(error)).toMatchObject({ code: "UNAVAILABLE", retryable: true });
  });

  it("should say what to do and name no driver", () => {
    const e = contentionError(withCode("SQLITE_BUSY", "SQLITE_BUSY: database is locked at /var/lib/tai.db"))!;
    expect(e.message).toBe(
      `the database is busy or out of reach (no connection or lock within ${DB_WAIT_MS / 1000} s); send the request again`,
    );
    expect(contentionError(withCode("P2034"))!.message).toContain("send it again");
  });

  it("should give null for any other error, and for an API error already typed", () => {
    expect(contentionError(new Error("unique constraint failed"))).toBeNull();
    expect(contentionError(withCode("P2002"))).toBeNull();
    expect(contentionError(new ApiError("UNAVAILABLE", "already typed"))).toBeNull();
    expect(contentionError("a string")).toBeNull();
    expect(contentionError(null)).toBeNull();
  });

  it("should survive a cause chain that loops", () => {
    const a = new Error("a") as Error & { cause?: unknown };
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect(contentionError(a)).toBeNull();
  });

  it("should rethrow a contention failure typed and anything else as it is", () => {
    expect(() => rethrowContention(withCode("40001"))).toThrow(expect.objectContaining({ code: "CONFLICT" }));
    const other = new RangeError("bug");
    expect(() => rethrowContention(other)).toThrow(other);
  });

  it("should let a transaction wait for a connection as long as the pool does, and run twice that", () => {
    expect(TX).toEqual({ maxWait: DB_WAIT_MS, timeout: 2 * DB_WAIT_MS });
  });
});
