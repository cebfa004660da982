-- CreateTable
CREATE TABLE "AgentStoreItem" (
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AgentStoreItem_pkey" PRIMARY KEY ("namespace","key")
);

