// The schema's descriptions are short Markdown: paragraphs, `code` and
// **bold**. They are shown as text nodes built from this parse, never as
// HTML, so a description (or a playbook's own text) cannot inject markup.

export type Span = { text: string; code?: boolean; bold?: boolean };

/** Paragraphs of spans; a line of `---` separates sections like a blank line. */
export function parseMarkdown(markdown: string): Span[][] {
  return markdown
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*(?:---+\s*\n)?\s*\n|\n---+\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && !/^-{3,}$/.test(p))
    .map(spans);
}

function spans(paragraph: string): Span[] {
  const out: Span[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = pattern.exec(paragraph); m; m = pattern.exec(paragraph)) {
    if (m.index > last) out.push({ text: paragraph.slice(last, m.index) });
    out.push(m[1] !== undefined ? { text: m[1], code: true } : { text: m[2], bold: true });
    last = m.index + m[0].length;
  }
  if (last < paragraph.length) out.push({ text: paragraph.slice(last) });
  return out;
}

/** The parse as DOM: <p> per paragraph, <code> and <strong> spans, text nodes only. */
export function markdownElement(markdown: string, className: string): HTMLElement {
  const root = document.createElement("div");
  root.className = className;
  for (const paragraph of parseMarkdown(markdown)) {
    const p = document.createElement("p");
    for (const span of paragraph) {
      const el = span.code ? document.createElement("code") : span.bold ? document.createElement("strong") : null;
      if (el) {
        el.textContent = span.text;
        p.append(el);
      } else p.append(document.createTextNode(span.text));
    }
    root.append(p);
  }
  return root;
}
