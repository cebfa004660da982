import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { Redis } from "ioredis";
import { redisTestUrl } from "../helpers/databases.ts";

/** The fields of a dispatched run the flow-control tests read. */
export interface LimitedRun {
  id: string;
  status: string;
  errorKind: string | null;
  errorMessage: string | null;
  details: { retryAfterSeconds?: number; limit?: { reason: string; declaredOn: string } } | null;
}

const DISPATCH = /* GraphQL */ `
  mutation Dispatch($tool: String!, $input: JSONObject!) {
    dispatch(input: { tool: $tool, input: $input }) {
      id
      status
      errorKind
      errorMessage
      details
    }
  }
`;

/** Dispatches `tool` over HTTP (`url` is a /graphql) and resolves with the run answered; a GraphQL error throws. */
export async function dispatchOver(url: string, tool: string, input: Record<string, unknown>): Promise<LimitedRun> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: DISPATCH, variables: { tool, input } }),
  });
  const body = (await res.json()) as { data?: { dispatch: LimitedRun }; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body.errors)}`);
  return body.data!.dispatch;
}

/** What `/metrics` of the instance serving `graphql` (a /graphql URL) says of `tai42_limits_degraded`. */
export async function degraded(graphql: string): Promise<number> {
  const text = await (await fetch(graphql.replace(/\/graphql$/, "/metrics"))).text();
  return Number(/^tai42_limits_degraded (\d+)/m.exec(text)?.[1] ?? "NaN");
}

/** What the limits fixture's bodies counted in Redis under one key (`test/fixtures/limits-tools.ts`). */
export function counters() {
  const key = `tai42-limits-test:${randomUUID()}`;
  const redis = new Redis(redisTestUrl());
  return {
    key,
    most: async () => Number((await redis.get(`${key}:most`)) ?? 0),
    calls: async () => (await redis.lrange(`${key}:calls`, 0, -1)).map(Number),
    close: () => redis.quit(),
  };
}

/** The full seconds after `t0` and the calls in each: `[9, 10, 10, …]`. */
export function perSecond(times: number[], t0: number, seconds: number): number[] {
  return Array.from(
    { length: seconds },
    (_, s) => times.filter((t) => t >= t0 + s * 1000 && t < t0 + (s + 1) * 1000).length,
  );
}

/** An HTTP upstream that answers 429 with `Retry-After: 3` to its first request and 200 after; it records each. */
export async function upstream429(): Promise<{ url: string; requests: number[]; close(): Promise<void> }> {
  const requests: number[] = [];
  const server: Server = createServer((_req, res) => {
    requests.push(Date.now());
    if (requests.length === 1) res.writeHead(429, { "retry-after": "3" }).end("slow down");
    else res.writeHead(200).end("fine");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Runs `n` clients calling `call` one after another until `ms` passed; every answer, in order of arrival. */
export async function hammer<T>(n: number, ms: number, call: () => Promise<T>): Promise<T[]> {
  const end = Date.now() + ms;
  const answers: T[] = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < end) answers.push(await call());
    }),
  );
  return answers;
}
