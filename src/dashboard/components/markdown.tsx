import MarkdownIt from "markdown-it";

/**
 * Markdown as descriptions are written (a tool's, an extension's, a connector's, an agent's), rendered safely:
 * markdown-it with `html: false` escapes every raw HTML tag as text, images are not parsed (the page's CSP allows no
 * remote image anyway), and a link is kept only when it goes to http(s) or mailto — `javascript:`, `data:` and
 * relative links stay text. Links open in a new tab with `rel="noopener noreferrer"`.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false }).disable("image");

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
md.validateLink = (url: string) => SAFE_LINK.test(url.trim());

const renderLink =
  md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i].attrSet("target", "_blank");
  tokens[i].attrSet("rel", "noopener noreferrer");
  return renderLink(tokens, i, options, env, self);
};

/** The HTML a Markdown text renders to (no raw HTML of the source ever passes through). */
export function markdownHtml(source: string): string {
  return md.render(source);
}

/** The words a Markdown text shows, without its marks: what a one-line preview and its title give. */
export function markdownText(source: string): string {
  const words: string[] = [];
  for (const block of md.parse(source, {})) {
    if (block.type !== "inline") continue;
    const line = (block.children ?? [])
      .map((t) => (t.type === "text" || t.type === "code_inline" ? t.content : t.type === "softbreak" ? " " : ""))
      .join("");
    if (line.trim()) words.push(line.trim());
  }
  return words.join(" ");
}

/** A description rendered from its Markdown (see {@link markdownHtml}). */
export function Markdown({ source, className }: { source: string; className?: string }) {
  return (
    <div
      className={`markdown${className ? ` ${className}` : ""}`}
      data-testid="markdown"
      dangerouslySetInnerHTML={{ __html: markdownHtml(source) }}
    />
  );
}

/**
 * A description's preview: its words without Markdown marks, clamped to `lines` lines at a word boundary with an
 * ellipsis (`.clamp`), the whole text on hover.
 */
export function Clamped({ source, lines = 2 }: { source: string; lines?: 2 | 3 }) {
  const text = markdownText(source);
  return (
    <span className={`muted clamp${lines === 3 ? " clamp-3" : ""}`} title={text} data-testid="clamped">
      {text}
    </span>
  );
}
