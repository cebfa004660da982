import type { WebSocketServer } from "ws";
import type { Logger } from "../log.ts";

/**
 * Socket errors of a WebSocket server, logged as what they are. ws raises a client's
 * protocol faults (an oversized or malformed frame: codes `WS_ERR_*`) as an `error` event
 * after it has already closed the socket with the right code (1009, 1002…); graphql-ws's
 * own handler would print them to the console with a stack trace and close with 4500.
 * Here a client fault is one `warn` line without a stack; anything else is logged as an
 * error and the socket closed with 4500 as graphql-ws does.
 *
 * Install after `useServer`: its server-wide and per-connection `error` listeners are replaced.
 */
export function logSocketFaults(wss: WebSocketServer, log: Logger): void {
  // ws forwards the HTTP server's own errors to the WebSocket server, where graphql-ws
  // would print them with a stack trace. A failed listen (a port in use) is what
  // `start()` rejects with and `serve()` reports, naming PORT; a later one is logged.
  wss.removeAllListeners("error");
  wss.on("error", (err: Error) => {
    if (wss.options.server?.listening) log.error("HTTP server error", { error: err.message });
  });
  wss.on("connection", (socket) => {
    socket.removeAllListeners("error");
    socket.on("error", (err: Error & { code?: string }) => {
      if (err.code?.startsWith("WS_ERR_"))
        return log.warn("closed a WebSocket after a client protocol fault", { code: err.code, error: err.message });
      log.error("WebSocket error", { error: err.message });
      socket.close(4500, "Internal server error");
    });
  });
}
