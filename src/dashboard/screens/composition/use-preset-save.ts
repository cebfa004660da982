import { useClient } from "../../connection.tsx";
import { CreatePresetMutation, UpdatePresetMutation, type Preset } from "../../api/composition.ts";
import { codeOf, messageOf } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";

/** What the preset editor saves. */
export interface PresetInput {
  name: string;
  description: string;
  baseTool: string;
  fixedKwargs: Record<string, unknown>;
}

/**
 * Saving the preset editor: creates the preset, or saves a new version of `preset` with `expectedVersion`; a CONFLICT
 * is explained as a save since the editor opened.
 */
export function usePresetSave(preset: Preset | null, onSaved: () => void) {
  const client = useClient();
  const { busy, error, run } = useAction();
  const save = (input: PresetInput) =>
    run(
      async () => {
        if (preset)
          await client.request(UpdatePresetMutation, { name: preset.name, input, expectedVersion: preset.version });
        else await client.request(CreatePresetMutation, { input });
        onSaved();
      },
      (e) =>
        codeOf(e) === "CONFLICT"
          ? `${messageOf(e)} (someone saved it since this editor opened version ${preset?.version}: reopen it from the list)`
          : messageOf(e),
    );
  return { busy, error, save };
}
