// Entry of a worker_thread backend call: TypeScript through tsx, then the worker proper.
import { register } from "tsx/esm/api";

register();
await import("./worker-entry.ts");
