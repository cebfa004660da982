-- Repairs rows an earlier scrubbing bug damaged (issue 23 finding 1, docs/run-lifecycle.md
-- "Records repaired after the scrubbing bug"): a known secret equal to a structural word was
-- replaced by "[redacted]" in statuses, kinds, doors, roles and event types. A column that no
-- longer holds one of its values is reset to the one the record can still be known by, a run
-- whose status is lost is FAILED with errorKind INTERNAL and a message saying so. Tool names,
-- agent event types and thread roles cannot be known again: they are left as they are and
-- found with the queries in that section. No schema change.

-- A run whose status is lost ended, as far as anyone can know, in failure.
UPDATE "Run" SET
  "status" = 'FAILED',
  "isError" = true,
  "errorKind" = 'INTERNAL',
  "errorMessage" = 'this run''s record was damaged by an earlier scrubbing bug (its status read "[redacted]") and its real outcome is unknown',
  "finishedAt" = COALESCE("finishedAt", "startedAt")
WHERE "status" NOT IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'PARKED', 'CANCELLED');

UPDATE "Run" SET "errorKind" = 'INTERNAL'
WHERE "errorKind" IS NOT NULL AND "errorKind" NOT IN ('TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'NETWORK', 'UPSTREAM', 'INVALID_INPUT', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'CANCELLED', 'INTERNAL');
UPDATE "Run" SET "door" = 'runtime' WHERE "door" NOT IN ('graphql', 'agent', 'extension', 'cli', 'mcp', 'runtime');
-- The least-privileged role: a damaged role never grants more than it had.
UPDATE "Run" SET "callerRole" = 'READER' WHERE "callerRole" NOT IN ('READER', 'USER', 'ADMIN');
-- An unknown tier is stored as null (docs/security-model.md section 2).
UPDATE "Run" SET "tier" = NULL WHERE "tier" IS NOT NULL AND "tier" NOT IN ('read', 'write', 'fenced', 'secret');

UPDATE "Attempt" SET "errorKind" = 'INTERNAL'
WHERE "errorKind" IS NOT NULL AND "errorKind" NOT IN ('TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'NETWORK', 'UPSTREAM', 'INVALID_INPUT', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'CANCELLED', 'INTERNAL');

-- An event type from its place in its run: the first is its start, the last of an ended run its end (or park), any other a progress report.
UPDATE "RunEvent" SET "type" = CASE
    WHEN "seq" = (SELECT MIN(e."seq") FROM "RunEvent" e WHERE e."runId" = "RunEvent"."runId") THEN 'RUN_STARTED'
    WHEN "seq" = (SELECT MAX(e."seq") FROM "RunEvent" e WHERE e."runId" = "RunEvent"."runId")
      AND (SELECT r."status" FROM "Run" r WHERE r."id" = "RunEvent"."runId") = 'PARKED' THEN 'RUN_PARKED'
    WHEN "seq" = (SELECT MAX(e."seq") FROM "RunEvent" e WHERE e."runId" = "RunEvent"."runId")
      AND (SELECT r."status" FROM "Run" r WHERE r."id" = "RunEvent"."runId") <> 'RUNNING' THEN 'RUN_FINISHED'
    ELSE 'RUN_PROGRESS'
  END
WHERE "type" NOT IN ('RUN_STARTED', 'ATTEMPT_FAILED', 'RUN_PROGRESS', 'RUN_PARKED', 'RUN_FINISHED');

-- The run as each event recorded it: its status from the event type, the rest as on the run.
UPDATE "RunEvent" SET "snapshot" = jsonb_set("snapshot", '{status}', to_jsonb(CASE "type"
    WHEN 'RUN_PARKED' THEN 'PARKED'
    WHEN 'RUN_FINISHED' THEN (SELECT r."status" FROM "Run" r WHERE r."id" = "RunEvent"."runId")
    ELSE 'RUNNING'
  END))
WHERE "snapshot"->>'status' NOT IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'PARKED', 'CANCELLED');
UPDATE "RunEvent" SET "snapshot" = jsonb_set("snapshot", '{errorKind}', '"INTERNAL"'::jsonb)
WHERE "snapshot"->>'errorKind' IS NOT NULL
  AND "snapshot"->>'errorKind' NOT IN ('TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'NETWORK', 'UPSTREAM', 'INVALID_INPUT', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'CANCELLED', 'INTERNAL');
UPDATE "RunEvent" SET "snapshot" = jsonb_set("snapshot", '{door}', '"runtime"'::jsonb)
WHERE "snapshot"->>'door' NOT IN ('graphql', 'agent', 'extension', 'cli', 'mcp', 'runtime');
UPDATE "RunEvent" SET "snapshot" = jsonb_set("snapshot", '{callerRole}', '"READER"'::jsonb)
WHERE "snapshot"->>'callerRole' NOT IN ('READER', 'USER', 'ADMIN');
UPDATE "RunEvent" SET "snapshot" = jsonb_set("snapshot", '{tier}', 'null'::jsonb)
WHERE "snapshot"->>'tier' IS NOT NULL AND "snapshot"->>'tier' NOT IN ('read', 'write', 'fenced', 'secret');

UPDATE "Interaction" SET "status" = 'CANCELLED' WHERE "status" NOT IN ('PENDING', 'ANSWERED', 'EXPIRED', 'CANCELLED');
UPDATE "Interaction" SET "to" = 'user' WHERE "to" NOT IN ('user', 'caller');

UPDATE "AgentRun" SET "status" = 'FAILED', "finishedAt" = COALESCE("finishedAt", "startedAt")
WHERE "status" NOT IN ('RUNNING', 'SUCCEEDED', 'INTERRUPTED', 'SUSPENDED', 'ASKED', 'FAILED', 'CANCELLED', 'RESUMED');
UPDATE "AgentRun" SET "callerRole" = 'READER' WHERE "callerRole" NOT IN ('READER', 'USER', 'ADMIN');

UPDATE "Span" SET "status" = 'FAILED', "finishedAt" = COALESCE("finishedAt", "startedAt")
WHERE "status" NOT IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'PARKED', 'CANCELLED');
