import type { Limits } from "../limits/limits.ts";
import type { RetryPolicy } from "../retry/policy.ts";

/** A stored preset, as every read serves it (`!ENV` markers stay markers). */
export interface Preset {
  name: string;
  description: string;
  /** A tool, a branch or another preset. */
  baseTool: string;
  fixedKwargs: Record<string, unknown>;
  /** The preset's own declaration; null inherits the first declared ancestor's. */
  retryPolicy: RetryPolicy | null;
  /** The ADMIN's limits on this name (docs/flow-control.md §2), resolved; null: none declared here. */
  limits: Limits | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}
