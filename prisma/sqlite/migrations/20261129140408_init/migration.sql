-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tool" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "input" JSONB,
    "content" JSONB NOT NULL,
    "data" JSONB,
    "details" JSONB,
    "isError" BOOLEAN NOT NULL DEFAULT false,
    "errorKind" TEXT,
    "errorMessage" TEXT,
    "terminate" BOOLEAN NOT NULL DEFAULT false,
    "door" TEXT NOT NULL,
    "callerRole" TEXT NOT NULL,
    "callerKey" TEXT,
    "idempotencyScope" TEXT,
    "parentRunId" TEXT,
    "instanceId" TEXT NOT NULL,
    "policy" JSONB,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Attempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "runId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "errorKind" TEXT,
    "errorMessage" TEXT,
    "waitSeconds" REAL,
    CONSTRAINT "Attempt_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RunEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "runId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "snapshot" JSONB NOT NULL,
    CONSTRAINT "RunEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Instance" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "KvEntry" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" JSONB NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Preset" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "description" TEXT NOT NULL,
    "baseTool" TEXT NOT NULL,
    "fixedKwargs" JSONB NOT NULL,
    "retryPolicy" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Manifest" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "description" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "document" JSONB NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ManifestVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "manifestName" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "description" TEXT,
    "document" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ManifestVersion_manifestName_fkey" FOREIGN KEY ("manifestName") REFERENCES "Manifest" ("name") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Run_idempotencyScope_key" ON "Run"("idempotencyScope");

-- CreateIndex
CREATE INDEX "Run_tool_startedAt_idx" ON "Run"("tool", "startedAt");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Run_startedAt_id_idx" ON "Run"("startedAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Attempt_runId_number_key" ON "Attempt"("runId", "number");

-- CreateIndex
CREATE INDEX "RunEvent_runId_seq_idx" ON "RunEvent"("runId", "seq");

-- CreateIndex
CREATE INDEX "RunEvent_tool_seq_idx" ON "RunEvent"("tool", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_name_key" ON "ApiKey"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "ManifestVersion_manifestName_version_key" ON "ManifestVersion"("manifestName", "version");

