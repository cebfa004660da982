import { freshDatabase } from "./databases.ts";
import { testRuntime } from "./runtime.ts";

/** A migrated SQLite database for `tai` children, with an ADMIN and a USER key (`admin`, `user`). */
export async function cliDatabase(): Promise<{ url: string; admin: string; user: string }> {
  const db = await freshDatabase("sqlite");
  const rt = await testRuntime({ databaseUrl: db.url });
  const admin = await rt.keys.create("admin", "ADMIN");
  const user = await rt.keys.create("user", "USER");
  await rt.close();
  return { url: db.url, admin, user };
}
