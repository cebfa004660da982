/**
 * The forms in which an upstream may echo a settings header's value (docs/connectors.md §9),
 * each replaced by `[redacted]` in an error's excerpt and registered for the run's
 * redaction: the value itself, its JSON-escaped and percent-encoded texts, and the
 * credential after an auth scheme (`Bearer <token>`: the token alone), in the same forms.
 * Derived forms shorter than {@link MIN_DERIVED} characters are not registered: redacting
 * them would blank ordinary words.
 */

const MIN_DERIVED = 8;

/** `Bearer abc`, `Basic abc`, `Token abc`: the credential after the scheme, if the value has that shape. */
function credentialOf(value: string): string | undefined {
  const match = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*[ \t]+(\S.*)$/.exec(value);
  return match?.[1].trim();
}

function encodings(text: string): string[] {
  const forms = [JSON.stringify(text).slice(1, -1)];
  try {
    forms.push(encodeURIComponent(text));
  } catch {
    // A lone surrogate has no percent-encoding; the other forms stand.
  }
  return forms;
}

/** Every form of `values` to redact, longest first (so a value is replaced whole before its credential). */
export function secretForms(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    forms.add(value);
    const credential = credentialOf(value);
    for (const form of [...encodings(value), ...(credential ? [credential, ...encodings(credential)] : [])])
      if (form.length >= MIN_DERIVED) forms.add(form);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}
