import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP link a test can really cut: a proxy in front of a server (Redis, PostgreSQL) whose
 * connections are dropped and refused while cut, as in an outage of the network between
 * an instance and that server, not a mock of its client.
 */

/** A TCP proxy to `host:port` whose link a test can cut (every connection dropped, new ones refused) and restore. */
export interface Link {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  cut(): void;
  restore(): void;
  /** Holds every byte crossing the link `ms` longer (0: none), in order: a slow network or a slow server. */
  slow(ms: number): void;
  close(): Promise<void>;
}

/** Starts a cuttable TCP proxy in front of `host:port`. */
export async function tcpLink(host: string, port: number): Promise<Link> {
  const sockets = new Set<Socket>();
  let up = true;
  let delay = 0;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (!up) return void client.destroy();
    const upstream = connect(port, host);
    track(upstream);
    forward(client, upstream, () => delay);
    forward(upstream, client, () => delay);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      up = false;
      cutAll();
    },
    restore() {
      up = true;
    },
    slow(ms) {
      delay = ms;
    },
    async close() {
      up = false;
      cutAll();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The same URL reached through `link` (its host and port replaced by the proxy's). */
export function through(url: string, link: Link): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(link.port);
  return u.toString().replace(/\/$/, "");
}

/**
 * Copies `from` to `to`, each chunk held `delay()` ms from its arrival, never overtaking an earlier one (a delay
 * that shrinks does not reorder the stream).
 */
function forward(from: Socket, to: Socket, delay: () => number): void {
  const held: { at: number; chunk: Buffer }[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let ended = false;
  const pump = () => {
    timer = null;
    while (held.length && held[0].at <= Date.now()) {
      const { chunk } = held.shift()!;
      if (!to.destroyed) to.write(chunk);
    }
    if (held.length) timer = setTimeout(pump, held[0].at - Date.now());
    else if (ended) to.end();
  };
  from.on("data", (chunk: Buffer) => {
    const ms = delay();
    if (!ms && !held.length) return void (to.destroyed || to.write(chunk));
    held.push({ at: Math.max(Date.now() + ms, held.at(-1)?.at ?? 0), chunk });
    timer ??= setTimeout(pump, Math.max(0, held[0].at - Date.now()));
  });
  from.on("end", () => {
    ended = true;
    if (!held.length) to.end();
  });
}
