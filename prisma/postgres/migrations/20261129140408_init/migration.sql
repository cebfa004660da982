-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
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
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Attempt" (
    "id" SERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "errorKind" TEXT,
    "errorMessage" TEXT,
    "waitSeconds" DOUBLE PRECISION,

    CONSTRAINT "Attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunEvent" (
    "seq" SERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "snapshot" JSONB NOT NULL,

    CONSTRAINT "RunEvent_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Instance" (
    "id" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Instance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KvEntry" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "KvEntry_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Preset" (
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "baseTool" TEXT NOT NULL,
    "fixedKwargs" JSONB NOT NULL,
    "retryPolicy" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Preset_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "Manifest" (
    "name" TEXT NOT NULL,
    "description" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "document" JSONB NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Manifest_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "ManifestVersion" (
    "id" SERIAL NOT NULL,
    "manifestName" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "description" TEXT,
    "document" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ManifestVersion_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "Attempt" ADD CONSTRAINT "Attempt_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunEvent" ADD CONSTRAINT "RunEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ManifestVersion" ADD CONSTRAINT "ManifestVersion_manifestName_fkey" FOREIGN KEY ("manifestName") REFERENCES "Manifest"("name") ON DELETE CASCADE ON UPDATE CASCADE;

