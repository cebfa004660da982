import { maySeeRun } from "../auth/visibility.ts";
import type { Role } from "../auth/roles.ts";
import { nextTicks, type ScheduleInput, type ScheduleRecord } from "../schedules/schedule-record.ts";
import { ApiError } from "../errors.ts";
import { builder } from "./builder.ts";
import { requireAdmin } from "./context.ts";
import { RoleEnum } from "./enums.ts";
import { ToolRunRef } from "./run.ts";

/**
 * Schedules over GraphQL (docs/run-lifecycle.md §11.7): thin over `runtime.schedules`, which checks the caller (ADMIN
 * only) and the input and answers `ApiError`s the edge maps. Each resolver asks `requireAdmin` first.
 */

const ScheduleRef = builder.objectRef<ScheduleRecord>("Schedule").implement({
  description: "A stored cron schedule: it dispatches its tool in the background once per tick. ADMIN only.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Its name: ^[A-Za-z0-9_-]{1,64}$." }),
    tool: t.exposeString("tool", { description: "The surface name each tick dispatches." }),
    input: t.field({ type: "JSONObject", description: "The input each tick dispatches.", resolve: (s) => s.input }),
    cron: t.exposeString("cron", { description: "Its cron expression (5 to 7 fields; croner's syntax)." }),
    timeZone: t.exposeString("timeZone", { description: "The IANA time zone its cron is read in." }),
    enabled: t.exposeBoolean("enabled", { description: "false: it fires nothing." }),
    version: t.exposeInt("version", { description: "Bumped by every put; pass it as expectedVersion." }),
    callerRole: t.field({
      type: RoleEnum,
      description: "The role its runs are dispatched as (the ADMIN who last wrote it).",
      resolve: (s) => s.callerRole as Role,
    }),
    callerKey: t.string({ nullable: true, description: "That ADMIN's key name.", resolve: (s) => s.callerKey }),
    nextTickAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "The next tick it fires; null when disabled.",
      resolve: (s) => s.nextTickAt,
    }),
    nextTicks: t.field({
      type: ["DateTime"],
      description: "The next `count` ticks it fires, from its next tick on (1 to 20, default 3); empty when disabled.",
      args: { count: t.arg.int({ defaultValue: 3, description: "How many ticks: 1 to 20." }) },
      resolve: (s, { count }) => {
        const n = count ?? 3;
        if (!Number.isInteger(n) || n < 1 || n > 20)
          throw new ApiError("BAD_USER_INPUT", `nextTicks count must be 1 to 20, not ${n}`, [
            { path: "/count", message: "must be 1 to 20" },
          ]);
        if (!s.enabled || !s.nextTickAt) return [];
        const first = new Date(s.nextTickAt);
        return [first, ...nextTicks(s.cron, s.timeZone, first, n - 1)].map((d) => d.toISOString());
      },
    }),
    lastTickAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "The last tick fired.",
      resolve: (s) => s.lastTickAt,
    }),
    lastRun: t.field({
      type: ToolRunRef,
      nullable: true,
      description: "The run of the last tick fired; null when none or not visible to the caller.",
      resolve: async (s, _a, ctx) => {
        if (!s.lastRunId) return null;
        const run = await ctx.runtime.runs.get(s.lastRunId);
        return run && maySeeRun(requireAdmin(ctx, "read schedules"), run) ? run : null;
      },
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was created.", resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "When it was last written.", resolve: (s) => s.updatedAt }),
  }),
});

const ScheduleInputRef = builder.inputType("ScheduleInput", {
  description: "A schedule to store (docs/run-lifecycle.md §11.7).",
  fields: (t) => ({
    name: t.string({ required: true, description: "Its name: ^[A-Za-z0-9_-]{1,64}$." }),
    tool: t.string({ required: true, description: "A surface name; not secret-tier." }),
    input: t.field({
      type: "JSONObject",
      description: "The input each tick dispatches; valid for the tool, holding no secret. Default {}.",
    }),
    cron: t.string({ required: true, description: 'A cron expression, e.g. "0 9 * * 1-5" (6 fields: seconds first).' }),
    timeZone: t.string({ description: 'An IANA time zone; default "UTC".' }),
    enabled: t.boolean({ description: "Default true." }),
  }),
});

type ScheduleInputArg = {
  name: string;
  tool: string;
  input?: Record<string, unknown> | null;
  cron: string;
  timeZone?: string | null;
  enabled?: boolean | null;
};

function toInput(i: ScheduleInputArg): ScheduleInput {
  return {
    name: i.name,
    tool: i.tool,
    cron: i.cron,
    ...(i.input != null ? { input: i.input } : {}),
    ...(i.timeZone != null ? { timeZone: i.timeZone } : {}),
    ...(i.enabled != null ? { enabled: i.enabled } : {}),
  };
}

const READ = "read schedules";
const WRITE = "write schedules";

builder.queryFields((t) => ({
  schedules: t.field({
    type: [ScheduleRef],
    description: "Every stored schedule. ADMIN only.",
    resolve: (_r, _a, ctx) => ctx.runtime.schedules.list(requireAdmin(ctx, READ)),
  }),
  schedule: t.field({
    type: ScheduleRef,
    nullable: true,
    description: "One stored schedule; null when there is none. ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The schedule's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.schedules.get(requireAdmin(ctx, READ), name),
  }),
}));

builder.mutationFields((t) => ({
  putSchedule: t.field({
    type: ScheduleRef,
    description:
      "Creates (omit expectedVersion, or 0; CONFLICT when the name is taken) or replaces (expectedVersion must be the stored version, else CONFLICT) a schedule; its runs are dispatched as the caller. Nothing is stored on a refusal (BAD_USER_INPUT, issues naming the field). ADMIN only.",
    args: {
      input: t.arg({ type: ScheduleInputRef, required: true, description: "The schedule." }),
      expectedVersion: t.arg.int({ description: "The version read before the change; omit to create." }),
    },
    resolve: (_r, { input, expectedVersion }, ctx) =>
      ctx.runtime.schedules.put(requireAdmin(ctx, WRITE), toInput(input), expectedVersion ?? undefined),
  }),
  deleteSchedule: t.boolean({
    description: "Deletes a schedule (NOT_FOUND when there is none). ADMIN only.",
    args: { name: t.arg.string({ required: true, description: "The schedule's name." }) },
    resolve: (_r, { name }, ctx) => ctx.runtime.schedules.delete(requireAdmin(ctx, WRITE), name),
  }),
}));
