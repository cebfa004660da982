import { useState } from "react";

/**
 * A JSON value typed as text: for schemas a form cannot draw (an answer with no
 * answerFormat, any-JSON inputs) and for those who prefer to paste. `onChange` gets the
 * parsed value, or `undefined` while the text is not JSON.
 */
export function JsonEditor({
  value,
  onChange,
  label,
  id,
  rows = 6,
}: {
  value: unknown;
  onChange(value: unknown): void;
  label?: string;
  id: string;
  rows?: number;
}) {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="json-editor">
      {label && <label htmlFor={id}>{label}</label>}
      <textarea
        id={id}
        rows={rows}
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed: unknown = e.target.value.trim() === "" ? undefined : JSON.parse(e.target.value);
            setProblem(null);
            onChange(parsed);
          } catch (err) {
            setProblem(`not JSON yet: ${(err as Error).message}`);
            onChange(undefined);
          }
        }}
      />
      {problem && <span className="problem">{problem}</span>}
    </div>
  );
}
