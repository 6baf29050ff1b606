// Positions in an editor's text. Three conventions meet here: the core's
// findings say 1-based line and 1-based column counted in characters
// (Unicode scalar values); the language server's completion and hover say
// 0-based line and column in UTF-16 code units; the editor counts UTF-16
// offsets from the start of the text (a JavaScript string index). Every
// conversion clamps, so a stale position (the text changed since it was
// computed) lands at the nearest place that exists instead of failing.

/** The offsets at which each line of `text` starts (lines end at "\n"). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Where line `line0` (0-based) ends, before its "\r\n" or "\n". */
function lineEnd(text: string, starts: number[], line0: number): number {
  const next = line0 + 1 < starts.length ? starts[line0 + 1] - 1 : text.length;
  return next > starts[line0] && text[next - 1] === "\r" ? next - 1 : next;
}

function clampLine(starts: number[], line0: number): number {
  if (!Number.isFinite(line0) || line0 < 0) return 0;
  return Math.min(Math.floor(line0), starts.length - 1);
}

/**
 * The offset of a core location: 1-based line, 1-based column in
 * characters. A surrogate pair (an emoji) is one character, two offsets.
 * A line past the end means the end of the text.
 */
export function offsetOfLocation(text: string, line: number, column: number, starts = lineStarts(text)): number {
  // Past the last line (an error at the end of the input): the end of the text.
  if (line > starts.length) return text.length;
  const line0 = clampLine(starts, line - 1);
  const end = lineEnd(text, starts, line0);
  let offset = starts[line0];
  for (let chars = Math.max(0, column - 1); chars > 0 && offset < end; chars--) {
    offset += isHighSurrogate(text.charCodeAt(offset)) && offset + 1 < end ? 2 : 1;
  }
  return offset;
}

/** The offset of a 0-based line and UTF-16 column, clamped to that line. */
export function offsetOfPosition(text: string, line: number, character: number, starts = lineStarts(text)): number {
  const line0 = clampLine(starts, line);
  const end = lineEnd(text, starts, line0);
  const wanted = Number.isFinite(character) ? Math.max(0, Math.floor(character)) : 0;
  let offset = Math.min(starts[line0] + wanted, end);
  // Never between the two halves of a surrogate pair.
  if (offset > starts[line0] && isLowSurrogate(text.charCodeAt(offset)) && isHighSurrogate(text.charCodeAt(offset - 1))) offset--;
  return offset;
}

/** The 0-based line and UTF-16 column of an offset, clamped to the text. */
export function positionOf(text: string, offset: number, starts = lineStarts(text)): { line: number; character: number } {
  const at = Math.min(Math.max(0, Number.isFinite(offset) ? Math.floor(offset) : 0), text.length);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: Math.min(at, lineEnd(text, starts, lo)) - starts[lo] };
}

/**
 * Where a finding's mark ends: the end of the word, number or quoted
 * string at `from`, at least one character, never past its line.
 */
export function tokenEnd(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  let end = newline === -1 ? text.length : newline;
  if (end > from && text[end - 1] === "\r") end--;
  if (from >= end) return from;
  const quote = text[from];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, from + 1);
    return close !== -1 && close < end ? close + 1 : end;
  }
  let i = from;
  while (i < end && !/[\s,\]}]/.test(text[i])) i++;
  if (i > from && text[i - 1] === ":") i--;
  return Math.max(i, Math.min(from + (isHighSurrogate(text.charCodeAt(from)) ? 2 : 1), end));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
