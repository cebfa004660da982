-- AlterTable
-- (An ALTER, not Prisma's table copy: SQLite adds a NOT NULL column with a constant default in place.)
ALTER TABLE "Run" ADD COLUMN "syncWait" BOOLEAN NOT NULL DEFAULT false;
