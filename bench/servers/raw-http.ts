import { createServer } from "node:http";
import { runChild } from "../lib/child-harness.ts";
import { closeServer, listenLocal } from "../lib/listen.ts";

/**
 * Baseline (a): a raw node:http JSON echo, the physical limit of an HTTP round trip
 * with a JSON body on this machine. It parses the body and answers `{ text }`.
 */
runChild(async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: { text?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { text?: unknown };
      } catch {
        res.writeHead(400).end();
        return;
      }
      const out = JSON.stringify({ text: body.text });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) }).end(out);
    });
  });
  const origin = await listenLocal(server);
  return { url: `${origin}/echo`, stop: () => closeServer(server) };
});
