import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { within } from "../graphql/support.ts";
import { startServer, type Started } from "./edge-support.ts";

/** Sends `head` and `body` on a raw socket and collects the answer until the server ends the connection. */
function exchange(port: number, head: string, body: Buffer) {
  return within(
    "the server to answer and close",
    new Promise<{ response: string; error: string | null }>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      const chunks: Buffer[] = [];
      let error: string | null = null;
      socket.on("data", (c) => chunks.push(c));
      socket.on("error", (e) => (error = (e as NodeJS.ErrnoException).code ?? e.message));
      socket.on("close", () => resolve({ response: Buffer.concat(chunks).toString("utf8"), error }));
      socket.write(head);
      socket.write(body);
    }),
  );
}

describe("the callback route's body limit", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it("should answer an oversized body with 413 and Connection: close, then close the connection cleanly", async () => {
    s = await startServer({ TAI_MAX_BODY_BYTES: "1024" });
    const body = Buffer.alloc(6 * 1024, "a");
    const head = `POST /callbacks/${"t".repeat(32)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Twice: the answer does not depend on how the body's chunks happened to arrive.
    for (let i = 0; i < 2; i++) {
      const { response, error } = await exchange(s.port, head, body);
      expect(response).toMatch(/^HTTP\/1\.1 413 /);
      expect(response.toLowerCase()).toContain("connection: close");
      expect(response.toLowerCase()).not.toContain("keep-alive");
      expect(response).toContain("the body exceeds 1024 bytes");
      expect(error).toBeNull();
    }
  });
});
