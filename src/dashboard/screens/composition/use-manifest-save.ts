import { useState } from "react";
import { useClient } from "../../connection.tsx";
import { PutManifestMutation, type Manifest } from "../../api/composition.ts";
import { codeOf, issuesOf, messageOf, type Issue } from "../../api/errors.ts";
import type { ManifestFile } from "../../api/manifest-text.ts";
import { useAction } from "../../api/use-action.ts";

/**
 * Saving the manifest editor with putManifest: `file` as version `asVersion + 1` of the manifest the editor `opened`
 * (with `expectedVersion`), or as a new manifest when `asVersion` is undefined. A refusal's issues are kept at their
 * paths in the text, and its error explained.
 */
export function useManifestSave(opened: Manifest | null, onSaved: (name: string) => void) {
  const client = useClient();
  const [issues, setIssues] = useState<Issue[]>([]);
  const { busy, error, run } = useAction();
  const save = (file: ManifestFile | undefined, asVersion: number | undefined) =>
    run(
      async () => {
        if (!file) return;
        setIssues([]);
        const saved = await client.request(PutManifestMutation, {
          input: { ...file },
          ...(asVersion !== undefined ? { expectedVersion: asVersion } : {}),
        });
        onSaved(saved.putManifest.name);
      },
      (e) => {
        const found = textIssues(e);
        setIssues(found);
        return refusal(e, found, file!.name, opened, asVersion);
      },
    );
  return { busy, error, issues, save };
}

/** A refusal's issues at their paths in the text. */
function textIssues(e: unknown): Issue[] {
  // A create under a name that exists: a CONFLICT whose one issue, `/expectedVersion`, is no path of the text.
  const found = issuesOf(e).filter((i) => i.path !== "/expectedVersion");
  // The input's `document` fields are the text's top-level fields: an issue at /document/tools is at /tools.
  return found.map((i) => ({ ...i, path: i.path.replace(/^\/document(?=\/|$)/, "") }));
}

/** The sentence shown for a refused save of the manifest `name`, with the issues `found` in the text. */
function refusal(
  e: unknown,
  found: Issue[],
  name: string,
  opened: Manifest | null,
  asVersion: number | undefined,
): string {
  if (codeOf(e) === "CONFLICT" && asVersion !== undefined)
    return `${messageOf(e)} (someone saved ${opened!.name} since this editor opened version ${asVersion}: copy your text, reopen it from the list and edit the newer version)`;
  if (codeOf(e) === "CONFLICT")
    return `A manifest named ${name} exists already: choose another name, or open it from the list and edit it.`;
  if (found.length)
    return `The server refused the manifest (${codeOf(e) ?? "error"}): ${found.length} problem${found.length === 1 ? "" : "s"}, each at its path in the text:`;
  return messageOf(e);
}
