import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { freePort } from "../../helpers/cli.ts";

/** What a local test server saw of one request. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0, answering with `handler` once each request's body is read. */
export async function localServer(
  handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void,
): Promise<LocalServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      handler(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

export interface EverythingServer {
  url: string;
  stop(): void;
}

/** server-everything over Streamable HTTP on a free port; resolves once it listens (bounded). */
export async function everythingOverHttp(timeoutMs = 20_000): Promise<EverythingServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start listening")), timeoutMs);
    let text = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${text}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}
