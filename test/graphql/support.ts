import { createClient, type Client, type ClientOptions } from "graphql-ws";
import WebSocket from "ws";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { TaiServer } from "../../src/server/build-app.ts";

/** A GraphQL response as the tests read it. */
export interface GqlResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[] };
}

/** POSTs an operation to /graphql in-process (yoga.fetch, no port). */
export async function gql<T = Record<string, unknown>>(
  app: TaiServer,
  query: string,
  options: { variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<GqlResponse<T>> {
  const res = await app.yoga.fetch("http://127.0.0.1/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...options.headers },
    body: JSON.stringify({ query, variables: options.variables }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as GqlResponse<T>["body"] };
}

/** Resolves when `check` holds, polling; rejects naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Rejects naming `what` when `promise` does not settle within `timeoutMs`. */
export function within<T>(what: string, promise: Promise<T>, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An app with a `gate` tool whose runs end only once `release()` is called. */
export function gatedApp(): { app: App; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const app = new App();
  app.tool(
    { name: "gate", description: "Waits until the test releases it.", input: z.object({}) },
    async () => (await released, "open"),
  );
  return { app, release };
}

/** The ws:// URL of an http:// /graphql URL. */
export const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, "ws");

/** A graphql-ws client that never retries, so a close is observed as it happened. */
export function wsClient(url: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({ url: wsUrl(url), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true, ...options });
}

/** What a subscription received, with bounded waits on it. */
export interface Collected<T> {
  /** Data of each `next` without errors. */
  data: T[];
  /** Errors of `next` messages, and the error that ended the subscription. */
  errors: unknown[];
  completed: boolean;
  /** Ends the subscription from the client side. */
  stop(): void;
  /** Resolves once `n` data items arrived. */
  waitForData(n: number, timeoutMs?: number): Promise<T[]>;
  /** Resolves once the subscription completed or errored. */
  waitForEnd(timeoutMs?: number): Promise<void>;
}

/** Subscribes through graphql-ws and collects everything that arrives. */
export function collect<T = Record<string, unknown>>(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
): Collected<T> {
  const out: Collected<T> = {
    data: [],
    errors: [],
    completed: false,
    stop: () => {},
    waitForData: (n, timeoutMs = 10_000) =>
      until(`${n} subscription events (got ${out.data.length})`, () => out.data.length >= n || ended(), timeoutMs).then(
        () => out.data,
      ),
    waitForEnd: (timeoutMs = 10_000) => until("the subscription to end", () => ended(), timeoutMs),
  };
  const ended = () => out.completed || out.errors.length > 0;
  out.stop = client.subscribe<T>(
    { query, variables },
    {
      next: (r) => {
        if (r.errors) out.errors.push(...r.errors);
        else if (r.data) out.data.push(r.data as T);
      },
      // An `error` message carries a list of GraphQL errors; a close arrives as one event.
      error: (e) => (Array.isArray(e) ? out.errors.push(...e) : out.errors.push(e)),
      complete: () => (out.completed = true),
    },
  );
  return out;
}

export const RUN_EVENTS = /* GraphQL */ `
  subscription RunEvents($runId: ID, $tool: String, $afterSeq: Int) {
    runEvents(runId: $runId, tool: $tool, afterSeq: $afterSeq) {
      seq
      type
      at
      run {
        id
        tool
        status
      }
    }
  }
`;

/** One runEvents payload. */
export interface RunEventData {
  runEvents: { seq: number; type: string; at: string; run: { id: string; tool: string; status: string } };
}

/** One server-sent event, as yoga writes them ("event: next" / "event: complete"). */
export interface SseEvent {
  event: string;
  data: string;
}

/** Reads server-sent events from a fetch response, with bounded waits. */
export function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  let ended = false;
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: SseEvent = { event: "message", data: "" };
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) e.event = line.slice(6).trim();
          else if (line.startsWith("data:")) e.data += line.slice(5).trim();
        }
        if (block.trim() && !block.startsWith(":")) events.push(e);
      }
    }
    ended = true;
  })();
  return {
    events,
    /** Payloads of `next` events. */
    nexts: <T>() =>
      events
        .filter((e) => e.event === "next")
        .map(
          (e) =>
            JSON.parse(e.data) as { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] },
        ),
    ended: () => ended,
    async cancel() {
      await reader.cancel();
      await within("the SSE reader to stop", pump);
    },
  };
}
