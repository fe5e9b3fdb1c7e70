import * as nodeCrypto from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by UTF-16 code unit order, no whitespace,
 * `undefined` members dropped (as JSON.stringify does). Used for every hash the
 * product publishes (plans, traces), so that the same value always hashes the same.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortDeep(v);
    }
    return out;
  }
  return value;
}

/**
 * `canonicalJson(value)` and `canonicalJson(value without its top-level member omit)` from
 * one pass: the value is sorted once and each top-level member is serialised once, then
 * both strings are assembled from the same pieces (the keys are already in canonical order,
 * so dropping one member leaves the other string canonical). Byte-identical to calling
 * canonicalJson twice for JSON data (what JSON.parse returns, plus `undefined` members);
 * `omit` must be an ordinary key (not `__proto__`). Used to check and link trace hashes.
 */
export function canonicalJsonWithout(value: Record<string, unknown>, omit: string): { whole: string; without: string } {
  const sorted = sortDeep(value) as Record<string, unknown>;
  let whole = '';
  let without = '';
  for (const key of Object.keys(sorted)) {
    const json = JSON.stringify(sorted[key]);
    if (json === undefined) continue; // a function or symbol: JSON.stringify drops the member
    const member = `${JSON.stringify(key)}:${json}`;
    whole = whole ? `${whole},${member}` : member;
    if (key !== omit) without = without ? `${without},${member}` : member;
  }
  return { whole: `{${whole}}`, without: `{${without}}` };
}

/** crypto.hash (Node >= 20.12): a one-shot digest, about twice as fast for small inputs (no Hash object). */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string | Uint8Array, outputEncoding: 'hex') => string }).hash;

/** Hex SHA-256 of a string (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return typeof oneShotHash === 'function' ? oneShotHash('sha256', data, 'hex') : nodeCrypto.createHash('sha256').update(data).digest('hex');
}
