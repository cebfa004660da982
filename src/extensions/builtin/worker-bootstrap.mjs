// Entry of a worker_thread backend call: the worker proper, compiled (dist/) or from its
// TypeScript sources; tsx is registered for the sources and for a tool module in .ts.
import { existsSync } from "node:fs";
import { workerData } from "node:worker_threads";

const compiled = existsSync(new URL("./worker-entry.js", import.meta.url));
if (!compiled || /\.[mc]?ts$/.test(workerData.moduleUrl)) (await import("tsx/esm/api")).register();
await import(compiled ? "./worker-entry.js" : "./worker-entry.ts");
