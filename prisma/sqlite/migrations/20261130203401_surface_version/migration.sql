-- CreateTable
CREATE TABLE "SurfaceVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL
);


-- The one row every configuration write bumps (prisma/sqlite/schema.prisma, SurfaceVersion).
INSERT INTO "SurfaceVersion" ("id", "version", "updatedAt") VALUES (1, 0, '1970-01-01T00:00:00.000+00:00');
