/**
 * Finding where JSON values end in UTF-8 bytes, without parsing them. In
 * UTF-8 a byte below 0x80 is always that ASCII character, never part of
 * another one, so quotes, backslashes and brackets are found as in the text.
 * Used where a run reads only part of a large JSON file: the last tools file
 * (src/report/text.ts) and the spec on a regeneration (src/cache/sparse-document.ts).
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/**
 * The index just after the JSON string whose opening quote is at `start`, or -1 if it is not closed. Jumps from
 * quote to quote with indexOf (strings are most of a spec or a tools file).
 */
export function stringEnd(bytes: Buffer, start: number): number {
  let quote = bytes.indexOf(QUOTE, start + 1);
  while (quote >= 0) {
    // A quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/** The index just after the object or array whose opening bracket is at `start` (strings skipped whole), or -1. */
export function containerEnd(bytes: Buffer, start: number): number {
  let depth = 0;
  const length = bytes.length;
  for (let index = start; index < length; index++) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      index = stringEnd(bytes, index) - 1;
      if (index < 0) return -1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) return index + 1;
  }
  return -1;
}
