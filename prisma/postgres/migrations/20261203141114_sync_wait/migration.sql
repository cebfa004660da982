-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "syncWait" BOOLEAN NOT NULL DEFAULT false;

