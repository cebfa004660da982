-- CreateTable
CREATE TABLE "Schedule" (
    "name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "callerRole" TEXT NOT NULL,
    "callerKey" TEXT,
    "callerKeyId" TEXT,
    "nextTickAt" TIMESTAMP(3),
    "lastTickAt" TIMESTAMP(3),
    "lastRunId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "Schedule_nextTickAt_idx" ON "Schedule"("nextTickAt");
