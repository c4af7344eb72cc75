/**
 * Leaf parsers for setting values and HTTP header values, shared by the
 * generator and the generated runtime. Imports nothing.
 */

/** A setting (flag or environment variable) has a value it cannot take. */
export class SettingError extends Error {
  override readonly name: string = "SettingError";
}

/**
 * A whole number from a setting's text, within `min`..`max`. `source` names
 * where the text came from (`--port`, `PETSTORE_PORT`) for the error message.
 */
export function parseIntegerSetting(source: string, text: string, min: number, max: number): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new SettingError(`${source} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}.`);
  }
  return value;
}

/** Milliseconds to wait from a Retry-After value (delta-seconds or HTTP-date); undefined if absent or unparsable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
