import { Agent, request } from "node:http";
import type { HttpTarget } from "./load.ts";

function post(target: HttpTarget, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(target.url, { method: "POST", headers: target.headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${target.url} within 30 s`)));
    req.on("error", reject);
    req.end(target.body);
  });
}

/**
 * Sends `n` requests of `target`, `concurrency` at a time, one connection per request (so
 * no socket left idle is ever reused just as the server closes it); rejects on the first
 * non-2xx or GraphQL-error answer.
 */
export async function sendRequests(target: HttpTarget, n: number, concurrency: number): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await post(target, agent);
      if (res.status < 200 || res.status > 299 || res.body.includes('"errors"'))
        throw new Error(`request failed (HTTP ${res.status}): ${res.body.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  } finally {
    agent.destroy();
  }
}

/** Polls `check` every 50 ms until it holds; false when `timeoutMs` passed first. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
