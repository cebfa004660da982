/**
 * The contrib extensions: generic, self-contained, loaded like any extension module —
 * list "tai42/contrib" in a manifest's extensionsModules (or in TAI_MODULES).
 * Whatever they run goes through the chokepoint, tiers included.
 */
import { app } from "../../app.ts";
import { registerBatch } from "./batch.ts";
import { registerCache } from "./cache.ts";
import { registerChain } from "./chain.ts";
import { registerLabel } from "./label.ts";
import { registerTimeout } from "./timeout.ts";

registerChain(app);
registerBatch(app);
registerCache(app);
registerTimeout(app);
registerLabel(app);
