/**
 * canonicalJsonWithout (used by traces verify to hash each record once) must give exactly the
 * two strings recordHash and wholeHash hash: canonicalJson of the record without `sha256`,
 * and canonicalJson of the whole record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, canonicalJsonSha256, canonicalJsonWithout, sha256Hex } from '../../server/src/core/canonical.js';

function reference(rec: Record<string, unknown>, omit: string): { whole: string; without: string } {
  const rest: Record<string, unknown> = { ...rec };
  delete rest[omit];
  return { whole: canonicalJson(rec), without: canonicalJson(rest) };
}

/** Keys around "sha256" in sort order, integer-like keys (which JS objects order first), unicode. */
const key = fc.oneof(
  fc.constantFrom('sha256', 'sha', 'sha2', 'sha2560', 'sha257', 'shb', 'sh', 'SHA256', 'seq', 'prev_sha256', 'zzz', 'a', '', '0', '1', '9', '10', '4294967295', '-1', '01', 'é', '日本', '😀', 'a\u0000b', '\ud800'),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
/** JSON values, with `undefined` members and array items mixed in (canonicalJson drops / nulls them). */
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: false }),
    fc.constant(-0),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constant(undefined),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 5 }),
  ),
}));
const record = fc.dictionary(key, value.v, { maxKeys: 12 });

describe('canonicalJsonWithout', () => {
  it('equals canonicalJson of the record and of the record without the omitted key (random records)', () => {
    fc.assert(
      fc.property(record, fc.option(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), { nil: undefined }), (rec, sha) => {
        const r = sha === undefined ? rec : { ...rec, sha256: sha };
        expect(canonicalJsonWithout(r, 'sha256')).toEqual(reference(r, 'sha256'));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on records parsed from JSON, including a "__proto__" member and key order quirks', () => {
    const texts = [
      '{"sha256":"x","__proto__":{"a":1},"b":[1,{"__proto__":2,"c":3}],"10":1,"9":2,"a":null}',
      '{"z":1,"sha256":"s","a":{"10":1,"2":2,"b":{"y":[],"x":{}}},"seq":1,"prev_sha256":null}',
      '{"sha256":"only"}',
      '{}',
      '{"format":"copilot-onboarding/elicitation-trace@1","seq":3,"prev_sha256":"ab","sha256":"cd","message":"é😀\\u2028","n":1e21,"f":0.1}',
    ];
    for (const t of texts) {
      const rec = JSON.parse(t) as Record<string, unknown>;
      expect(canonicalJsonWithout(rec, 'sha256')).toEqual(reference(rec, 'sha256'));
    }
  });

  it('drops undefined members at every level, as canonicalJson does', () => {
    const rec = { b: undefined, sha256: 'h', a: { y: undefined, x: [undefined, 1] }, c: 1 };
    expect(canonicalJsonWithout(rec, 'sha256')).toEqual({ whole: '{"a":{"x":[null,1]},"c":1,"sha256":"h"}', without: '{"a":{"x":[null,1]},"c":1}' });
  });
});

describe('sha256Hex', () => {
  it('equals createHash("sha256") for strings (as UTF-8, lone surrogates included) and bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.uint8Array({ maxLength: 200 })), (data) => {
        expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
      }),
      { numRuns: 500 },
    );
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('canonicalJsonSha256', () => {
  /** The straightforward version it replaces. */
  const reference = (v: unknown): string => sha256Hex(canonicalJson(v));
  /** Values with strings long enough to be hashed on their own and arrays long enough to flush. */
  const long = fc.string({ unit: 'binary', minLength: 1000, maxLength: 1100 });
  const big = fc.dictionary(key, fc.oneof(value.v, long, fc.array(fc.oneof(value.v, long), { minLength: 50, maxLength: 300 })), { maxKeys: 4 });

  it('equals sha256Hex(canonicalJson(value)) for JSON values (random, incl. undefined, long strings, -0, NaN)', () => {
    fc.assert(
      fc.property(fc.oneof(value.v, record, big), (v) => {
        if (v === undefined) return; // canonicalJson(undefined) is not a string
        expect(canonicalJsonSha256(v)).toBe(reference(v));
      }),
      { numRuns: 600 },
    );
  });

  it('agrees on values that are not plain JSON data (it falls back to the straightforward route)', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [1, undefined] });
    const values: unknown[] = [
      { a: new Point(1, 2), b: 1 },
      { d: new Date(0) },
      { f: () => 1, g: 2 },
      [() => 1, Symbol('s'), 3],
      { m: new Map([[1, 2]]), s: new Set([1]) },
      { buf: Buffer.from('ab'), u: new Uint8Array([1, 2, 3]) },
      JSON.parse('{"__proto__":{"a":1},"b":2}') as unknown,
      JSON.parse('{"x":{"__proto__":3,"c":1}}') as unknown,
      { toJSON: 'not a function', z: 1 },
      { '10': 1, '9': 2, a: 3, '': 4, '4294967295': 5, '01': 6 }, // integer-like keys come first in canonicalJson's objects
      nullProto,
      { s: Object('boxed') as unknown, n: Object(1) as unknown },
      'x'.repeat(5000),
      '',
      [],
      {},
      { big: 'é😀\u2028"\\\n'.repeat(300), list: Array.from({ length: 3000 }, (_, i) => ({ i, t: `t${i}` })) },
    ];
    for (const v of values) expect(canonicalJsonSha256(v)).toBe(reference(v));
  });

  it('hashes a real plan body like the stored canonical JSON', () => {
    const body = { z: 1, a: { content: 'line\n'.repeat(2000), pieces: [{ sourceStart: 0, sourceEnd: 10 }] }, m: null };
    expect(canonicalJsonSha256(body)).toBe(createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex'));
  });
});
