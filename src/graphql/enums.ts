import { ERROR_KINDS } from "../errors.ts";
import { RUN_EVENT_TYPES, RUN_STATUSES } from "../dispatch/run-record.ts";
import { builder } from "./builder.ts";

export const TierEnum = builder.enumType("Tier", {
  values: { READ: { value: "read" }, WRITE: { value: "write" }, FENCED: { value: "fenced" }, SECRET: { value: "secret" } } as const,
});
export const RoleEnum = builder.enumType("Role", { values: ["READER", "USER", "ADMIN"] as const });
export const ToolOriginEnum = builder.enumType("ToolOrigin", { values: ["TOOL", "PRESET", "BRANCH", "AGENT"] as const });
export const ExecutionModeEnum = builder.enumType("ExecutionMode", {
  values: { SEQUENTIAL: { value: "sequential" }, PARALLEL: { value: "parallel" } } as const,
});
export const ErrorKindEnum = builder.enumType("ErrorKind", { values: ERROR_KINDS });
export const RunStatusEnum = builder.enumType("RunStatus", { values: RUN_STATUSES });
export const RunEventTypeEnum = builder.enumType("RunEventType", { values: RUN_EVENT_TYPES });
