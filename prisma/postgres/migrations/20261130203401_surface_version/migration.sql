-- CreateTable
CREATE TABLE "SurfaceVersion" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SurfaceVersion_pkey" PRIMARY KEY ("id")
);


-- The one row every configuration write bumps (prisma/sqlite/schema.prisma, SurfaceVersion).
INSERT INTO "SurfaceVersion" ("id", "version", "updatedAt") VALUES (1, 0, CURRENT_TIMESTAMP);
