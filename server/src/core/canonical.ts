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
