/**
 * The hashes the product publishes (plan ids, trace chains, backup manifests) are SHA-256 over
 * the RFC 8785 JSON Canonicalization Scheme (JCS), so anyone can recompute them with any JCS
 * implementation. `canonicalize` is that scheme; this module only names it for the callers.
 *
 * JCS refuses what has no canonical form: NaN, ±Infinity and strings with a lone surrogate
 * throw; `undefined` members are dropped and `undefined` array items become null, as in
 * JSON.stringify.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The RFC 8785 canonical JSON text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

/** Hex SHA-256 of a string (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The RFC 8785 text of each top-level member of `obj` (`"key":value`), sorted as JCS sorts them;
 * members whose value is undefined are dropped, as canonicalJson does. `joinMembers` turns them
 * back into the canonical JSON of the object, or of the object without some members: one record
 * canonicalized once gives the texts of several of its hashes.
 */
export function canonicalMembers(obj: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === 'symbol') continue;
    out.push([key, `${canonicalJson(key)}:${canonicalJson(v)}`]);
  }
  return out;
}

/** The canonical JSON of the object `members` came from, without the members named in `omit`. */
export function joinMembers(members: ReadonlyArray<[string, string]>, omit: ReadonlyArray<string> = []): string {
  let text = '{';
  for (const [key, member] of members) {
    if (omit.includes(key)) continue;
    text += text.length > 1 ? `,${member}` : member;
  }
  return `${text}}`;
}
