import { Redis } from "ioredis";
import { redisTestUrl } from "./databases.ts";

/**
 * Resolves once every channel `prefix + topic` has at least `count` Redis subscribers
 * (SUBSCRIBE is asynchronous: an instance's bus listens some moments after it is built).
 */
export async function redisSubscribed(prefix: string, topics: string[], count = 2, timeoutMs = 10_000): Promise<void> {
  const r = new Redis(redisTestUrl(), { lazyConnect: true });
  await r.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = (await r.pubsub("NUMSUB", ...topics.map((t) => prefix + t))) as (string | number)[];
      if (reply.filter((_, i) => i % 2 === 1).every((n) => Number(n) >= count)) return;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for Redis subscribers on ${topics.join(", ")}`);
      await new Promise((done) => setTimeout(done, 25));
    }
  } finally {
    r.disconnect();
  }
}
