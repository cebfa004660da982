import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client.ts";
import { readSurfaceVersion, versionReader, writeSurface } from "../../src/registry/surface-version.ts";
import { freshDatabase } from "../helpers/databases.ts";

/**
 * Every dispatch's version check reads on the run log's driver (docs/deploy.md §"Configuration converges"): it must
 * answer what Prisma reads, as a number, or every check would see a moved version and reload. Runs on the database
 * TAI_TEST_DB selects.
 */
describe("the stored surface version read on the run log's driver", () => {
  it("should read the number Prisma reads, before and after each configuration write", async () => {
    const fresh = await freshDatabase();
    const { db, driver } = await openDb(fresh.url);
    try {
      const read = versionReader(driver);
      const seen: [number, number][] = [];
      for (let i = 0; i < 3; i++) {
        seen.push([await read(), await readSurfaceVersion(db)]);
        await writeSurface(db, async () => {});
      }
      seen.push([await read(), await readSurfaceVersion(db)]);
      for (const [raw, prisma] of seen) expect(raw).toBe(prisma);
      expect(seen.map(([raw]) => raw - seen[0][0])).toEqual([0, 1, 2, 3]);
      expect(typeof seen[0][0]).toBe("number");
    } finally {
      await db.$disconnect();
      await fresh.drop();
    }
  });
});
