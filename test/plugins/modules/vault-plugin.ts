/** A tool module that registers a config-provider plugin through the public package, as users write them. */
import { app, fileConfigProvider, z } from "tai42";

app.plugin({
  name: "vault-file",
  description: "Secrets from a JSON file.",
  configProvider: fileConfigProvider(process.env.VAULT_PLUGIN_FILE!),
});
app.tool(
  { name: "vault_call", description: "Calls an API with a token; echoes it.", input: z.object({ token: z.string() }) },
  ({ token }) => ({ sent: `Bearer ${token}` }),
);
