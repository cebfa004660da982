import { useState } from "react";
import { useClient } from "../../connection.tsx";
import { decisionsOf, PutConnectorMutation, type Connector, type ToolDecision } from "../../api/connectors.ts";
import { codeOf, issuesOf, messageOf, type Issue } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";

/**
 * The connector editor's state: the fields as typed, the issues of the last refusal, and `save`, which puts the
 * connector with `expectedVersion` (the version the editor opened) and explains a CONFLICT.
 */
export type ConnectorEditorState = ReturnType<typeof useConnectorEditor>;

export function useConnectorEditor(connector: Connector | null, onSaved: (name: string) => void) {
  const client = useClient();
  const [name, setName] = useState(connector?.name ?? "");
  const [kind, setKind] = useState(connector?.kind ?? "mcp");
  const [description, setDescription] = useState(connector?.description ?? "");
  const [settings, setSettings] = useState<unknown>(connector?.settings ?? {});
  const [tools, setTools] = useState<unknown>(connector ? decisionsOf(connector) : {});
  const [issues, setIssues] = useState<Issue[]>([]);
  const { busy, error, run } = useAction();
  const ready = !!name.trim() && !!kind.trim() && isObject(settings) && isObject(tools);

  const save = () =>
    run(
      async () => {
        setIssues([]);
        const input = {
          name: name.trim(),
          kind: kind.trim(),
          description: description.trim(),
          settings: settings as Record<string, unknown>,
          tools: tools as Record<string, ToolDecision>,
        };
        await client.request(PutConnectorMutation, { input, expectedVersion: connector?.version ?? null });
        onSaved(input.name);
      },
      (e) => {
        setIssues(issuesOf(e));
        if (codeOf(e) === "CONFLICT" && connector)
          return `${messageOf(e)} (someone saved it since this editor opened version ${connector.version}: reopen it from the list)`;
        return messageOf(e);
      },
    );

  return {
    name,
    setName,
    kind,
    setKind,
    description,
    setDescription,
    settings,
    setSettings,
    tools,
    setTools,
    issues,
    busy,
    error,
    ready,
    save,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}
