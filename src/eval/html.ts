/**
 * Escaping-by-default HTML templating for the evaluation report. Case ids, step contents, rationales and rule
 * names come from evaluation data that is full of injection text and markup on purpose, so every interpolated
 * value is escaped unless it is itself the output of `html` (or explicitly `trusted`). Forgetting to escape is
 * therefore not possible by omission.
 *
 * @example
 * html`<td title="${c.id}">${c.id}</td>`   // both uses escaped
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`   // nested fragments kept as markup
 */

/** Markup produced by `html` (or vouched for with `trusted`); inserted as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values (HTML and inline SVG alike). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/**
 * Marks a string the report itself computed (a number, a colour, a CSS block) as markup. Never pass data from
 * cases or guards through it.
 */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Tagged template: literal parts verbatim, values escaped; `SafeHtml` and arrays of it are kept; nullish/false → ''. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += renderValue(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

function renderValue(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
