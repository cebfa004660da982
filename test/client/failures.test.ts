import { NetworkError } from "graphql-sse";
import { describe, expect, it } from "vitest";
import { TaiGraphQLError, TaiTransportError } from "../../src/client/errors.ts";
import { classify } from "../../src/client/failures.ts";

const close = (code: number, reason = "") => ({ code, reason });
const http = (status: number) => new NetworkError(new Response(null, { status }));

describe("how a stream's failure is classified", () => {
  it.each([1000, 1001, 1005, 1006, 1012, 1013, 1014, 4408, 4499])(
    "should resume after a socket closed with %i",
    (code) => {
      expect(classify(close(code))).toMatchObject({ resume: "later", error: expect.any(TaiTransportError) });
    },
  );

  it.each([1002, 1003, 1009, 1011, 4400, 4406, 4409, 4429, 4500])(
    "should give up on a socket closed with %i",
    (code) => {
      const { resume, error } = classify(close(code, "why"));
      expect(resume).toBe("never");
      expect(error).toMatchObject({
        name: "TaiTransportError",
        closeCode: code,
        message: `the socket closed with ${code} (why)`,
      });
    },
  );

  it("should report a socket refused on connection_init (4403) as UNAUTHENTICATED, with the server's reason", () => {
    const { resume, error } = classify(close(4403, "Forbidden: the API key is unknown or revoked"));
    expect(resume).toBe("never");
    expect(error).toBeInstanceOf(TaiGraphQLError);
    expect(error).toMatchObject({
      code: "UNAUTHENTICATED",
      message: "UNAUTHENTICATED: the API key is unknown or revoked",
    });
  });

  it.each([408, 429, 500, 502, 503])("should resume after an SSE stream answered HTTP %i", (status) => {
    expect(classify(http(status))).toMatchObject({ resume: "later", error: { status } });
  });

  it.each([400, 401, 403, 404, 413])("should give up on an SSE stream answered HTTP %i", (status) => {
    expect(classify(http(status))).toMatchObject({ resume: "never", error: { name: "TaiTransportError", status } });
  });

  it("should resume after a network error or a stream cut mid-way", () => {
    expect(classify(new NetworkError(new TypeError("fetch failed")))).toMatchObject({ resume: "later" });
    expect(classify(new TypeError("terminated"))).toMatchObject({
      resume: "later",
      error: { message: "the connection was lost: terminated" },
    });
  });

  it("should give up on GraphQL errors unless the server closed the stream to be resumed (a lagging subscriber now, an unreadable store later)", () => {
    expect(classify([{ message: "no", extensions: { code: "FORBIDDEN" } }])).toMatchObject({
      resume: "never",
      error: { code: "FORBIDDEN" },
    });
    expect(classify([{ message: "behind", extensions: { code: "SUBSCRIBER_LAGGING", afterSeq: 3 } }])).toMatchObject({
      resume: "now",
    });
    expect(
      classify([{ message: "store down", extensions: { code: "EVENTS_UNAVAILABLE", afterSeq: 3 } }]),
    ).toMatchObject({ resume: "later" });
  });
});
