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

/**
 * `sha256Hex(canonicalJson(value))` without building the string: for plain JSON data (null,
 * strings, numbers, booleans, arrays and objects with Object.prototype or no prototype, with
 * `undefined` members and array items) the canonical JSON is fed to one SHA-256 in chunks;
 * anything else (functions, symbols, bigints, class instances, a `__proto__` key, a key that
 * starts with a digit) takes the straightforward route. Same digest either way (test/unit/canonical.test.ts).
 *
 * Why: the canonical JSON of a plan is megabytes, and JSON.stringify returns such a string as a
 * rope; hashing it first flattens the rope, which costs more than serialising it did.
 */
export function canonicalJsonSha256(value: unknown): string {
  const streamed = new CanonicalHasher().digest(value);
  return streamed ?? sha256Hex(canonicalJson(value));
}

/** Strings at least this long are hashed on their own instead of joining the pending chunk. */
const BIG_STRING = 1024;
/** The pending chunk is hashed once it is this long. */
const FLUSH_AT = 8192;
/** `"key":` for keys seen before (plans and traces repeat a few dozen keys). */
const keyJson = new Map<string, string>();

class CanonicalHasher {
  private readonly hash = nodeCrypto.createHash('sha256');
  private pending = '';

  digest(value: unknown): string | null {
    if (!this.write(value)) return null;
    if (this.pending) this.hash.update(this.pending, 'utf8');
    return this.hash.digest('hex');
  }

  private put(s: string): void {
    this.pending += s;
    if (this.pending.length >= FLUSH_AT) {
      this.hash.update(this.pending, 'utf8');
      this.pending = '';
    }
  }

  /** false: not plain JSON data (the hash is then unusable). */
  private write(value: unknown): boolean {
    switch (typeof value) {
      case 'string':
        if (value.length >= BIG_STRING) {
          if (this.pending) {
            this.hash.update(this.pending, 'utf8');
            this.pending = '';
          }
          this.hash.update(JSON.stringify(value), 'utf8');
        } else {
          this.put(JSON.stringify(value));
        }
        return true;
      case 'number':
        this.put(JSON.stringify(value)); // NaN and ±Infinity: null; -0: 0
        return true;
      case 'boolean':
        this.put(value ? 'true' : 'false');
        return true;
      case 'object':
        break;
      default:
        return false; // undefined (only at the top: members and items are handled below), functions, symbols, bigints
    }
    if (value === null) {
      this.put('null');
      return true;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === Array.prototype) {
      const arr = value as unknown[];
      this.put('[');
      for (let i = 0; i < arr.length; i++) {
        if (i > 0) this.put(',');
        const v = arr[i];
        if (v === undefined) this.put('null');
        else if (!this.write(v)) return false;
      }
      this.put(']');
      return true;
    }
    if (proto !== Object.prototype && proto !== null) return false;
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    // canonicalJson's order is that of an object filled in sorted key order, and JavaScript
    // objects list integer-like keys ("0", "10") first; such keys take the other route.
    for (const key of keys) {
      const c = key.charCodeAt(0);
      if (c >= 0x30 && c <= 0x39) return false;
    }
    for (let i = 1; i < keys.length; i++) {
      if (keys[i - 1]! > keys[i]!) {
        keys.sort();
        break;
      }
    }
    let first = true;
    this.put('{');
    for (const key of keys) {
      if (key === '__proto__') return false;
      const v = obj[key];
      if (v === undefined) continue;
      let kj = keyJson.get(key);
      if (kj === undefined) {
        kj = `${JSON.stringify(key)}:`;
        if (keyJson.size < 1024) keyJson.set(key, kj);
      }
      this.put(first ? kj : `,${kj}`);
      first = false;
      if (!this.write(v)) return false;
    }
    this.put('}');
    return true;
  }
}

/** Hex SHA-256 of a string (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return typeof oneShotHash === 'function' ? oneShotHash('sha256', data, 'hex') : nodeCrypto.createHash('sha256').update(data).digest('hex');
}
