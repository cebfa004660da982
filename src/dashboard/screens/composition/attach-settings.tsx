import { SchemaForm } from "../../components/schema-form.tsx";
import type { Extension } from "../../api/composition.ts";

/** The extension's settings, drawn from its configSchema, and the Attach button; or Attach alone when it takes none. */
export function AttachSettings({
  extension: e,
  config,
  onConfig,
  busy,
  disabled,
  onAttach,
}: {
  extension: Extension;
  config: unknown;
  onConfig(v: unknown): void;
  busy: boolean;
  disabled: boolean;
  onAttach(settings: unknown): Promise<void> | undefined;
}) {
  return e.configSchema ? (
    <>
      <p className="muted">
        A string “!ENV NAME” is read from the server's environment when the combo binds, and is only ever shown sealed.
      </p>
      <SchemaForm
        id={`config-${e.name}`}
        schema={e.configSchema}
        value={config}
        onChange={onConfig}
        onSubmit={onAttach}
        submitLabel={busy ? "Saving…" : "Attach"}
        disabled={disabled}
      />
    </>
  ) : (
    <>
      <span className="faint">This extension takes no settings.</span>
      <div>
        <button className="primary" disabled={disabled} onClick={() => void onAttach(null)}>
          {busy ? "Saving…" : "Attach"}
        </button>
      </div>
    </>
  );
}
