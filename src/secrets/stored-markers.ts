import type { Db } from "../db/client.ts";
import type { Secrets } from "./secrets.ts";

/**
 * Learns the value of every `!ENV` marker in the stored presets, manifests (active
 * or not) and connector settings that may be resolved and is set: at start, before anything is served or
 * stored, and on every reload of the stored configuration (here or, through the bus,
 * on another instance). A restart or a second instance thus scrubs what the first one did.
 */
export async function learnStoredMarkers(db: Db, secrets: Secrets): Promise<void> {
  const [presets, manifests, connectors] = await Promise.all([
    db.preset.findMany({ select: { fixedKwargs: true } }),
    db.manifest.findMany({ select: { document: true } }),
    db.connector.findMany({ select: { settings: true } }),
  ]);
  for (const p of presets) secrets.learnMarkers(p.fixedKwargs);
  for (const c of connectors) secrets.learnMarkers(c.settings);
  for (const m of manifests) secrets.learnMarkers(m.document);
}
