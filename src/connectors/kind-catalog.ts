import { builtinKinds } from "./builtin-kinds.ts";
import type { ConnectorKind } from "./connector-kind.ts";

/**
 * Every connector kind a runtime knows (docs/connectors.md §1), read at use time: the
 * built-ins, then every plugin's `connectors` (a plugin may take neither a built-in's name
 * nor another plugin's: `registry/registry.ts` refuses it at registration).
 */
export class KindCatalog {
  /** `plugins`: the plugins' connector kinds, read at use time (`plugins/plugin-catalog.ts`). */
  constructor(private readonly plugins: { connectorKinds(): Map<string, ConnectorKind> }) {}

  all(): Map<string, ConnectorKind> {
    const kinds = new Map<string, ConnectorKind>(builtinKinds().map((k) => [k.name, k]));
    for (const [name, kind] of this.plugins.connectorKinds()) if (!kinds.has(name)) kinds.set(name, kind);
    return kinds;
  }

  get(name: string): ConnectorKind | undefined {
    return this.all().get(name);
  }

  /** The known kind names, sorted (an unknown kind's issue lists them). */
  names(): string[] {
    return [...this.all().keys()].sort();
  }
}
