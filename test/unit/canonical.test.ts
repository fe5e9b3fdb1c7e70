/**
 * Hashes are SHA-256 over RFC 8785 (JCS) canonical JSON, computed by the `canonicalize` package.
 * Before it, canonicalJson was `JSON.stringify` of a copy with keys sorted (legacyCanonicalJson
 * below, kept verbatim as the reference). Every hash already on disk was made that way, so this
 * file proves the two agree on everything the product hashes: every record of
 * .copilot-state.example/ (and its stored hashes recompute), and random plain JSON values. It
 * also pins down where they differ (values no record holds), so that is known, not discovered.
 */
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalMembers, joinMembers, sha256Hex } from '../../server/src/core/canonical.js';
import { planHash } from '../../server/src/core/plan.js';
import { runs } from '../helpers/runs.js';

/** The canonical form before JCS (deleted from server/src/core/canonical.ts), verbatim. */
function legacyCanonicalJson(value: unknown): string {
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

const EXAMPLE = path.resolve(import.meta.dirname, '../../.copilot-state.example');
const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? jsonFiles(p) : e.name.endsWith('.json') ? [p] : [];
  });
}
const records = jsonFiles(EXAMPLE).map((file) => ({ rel: path.relative(EXAMPLE, file), value: JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> }));
const without = (rec: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(rec).filter(([k]) => !keys.includes(k)));

describe('the canonical form before JCS equals JCS on .copilot-state.example/', () => {
  it('finds every kind of record (traces, heads, plans, manifests, state, trace checkpoint)', () => {
    const dirs = new Set(records.map((r) => r.rel.split(path.sep)[0]));
    expect(dirs).toEqual(new Set(['plans', 'backups', 'sampling-traces', 'elicitation-traces', 'onboarding.json', 'trace-checkpoint.json']));
    expect(records.filter((r) => r.rel.endsWith('.head.json'))).toHaveLength(2);
  });

  it('every record, and every record without its hash members, canonicalises identically', () => {
    for (const { rel, value } of records) {
      for (const v of [value, without(value, 'sha256'), without(value, 'planId', 'sha256')]) {
        expect(canonicalize(v), rel).toBe(legacyCanonicalJson(v));
        expect(canonicalJson(v), rel).toBe(legacyCanonicalJson(v));
      }
    }
  });

  it('recomputes every stored hash with JCS: trace sha256 and prev_sha256 links, chain heads, plan ids, manifests', () => {
    let checked = 0;
    for (const chain of ['elicitation-traces', 'sampling-traces']) {
      const traces = records.filter((r) => r.rel.startsWith(chain + path.sep) && !r.rel.endsWith('.head.json')).map((r) => r.value);
      traces.sort((a, b) => (a.seq as number) - (b.seq as number));
      expect(traces.length).toBeGreaterThan(1);
      let prev: string | null = null;
      for (const t of traces) {
        expect(t.sha256).toBe(sha256Hex(canonicalJson(without(t, 'sha256'))));
        expect(t.prev_sha256).toBe(prev);
        prev = sha256Hex(canonicalJson(t));
        checked++;
      }
      const head = records.find((r) => r.rel === path.join(chain, '.head.json'))!.value;
      expect(head.sha256).toBe(prev);
    }
    for (const { rel, value } of records.filter((r) => r.rel.startsWith('plans' + path.sep))) {
      expect(value.sha256, rel).toBe(planHash(without(value, 'planId', 'sha256') as never));
      expect(value.planId, rel).toBe((value.sha256 as string).slice(0, 16));
      checked++;
    }
    for (const { rel, value } of records.filter((r) => r.rel.endsWith('.manifest.json'))) {
      expect(value.sha256, rel).toBe(sha256Hex(canonicalJson(without(value, 'sha256'))));
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('a plan file is the plan as JSON (its identity is planHash over the parsed plan, checked above, not its bytes)', () => {
    const files = readdirSync(path.join(EXAMPLE, 'plans'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(path.join(EXAMPLE, 'plans', file), 'utf8');
      expect(JSON.stringify(JSON.parse(text))).toBe(text);
    }
  });
});

/** Object keys as records carry them: not array indices ("0", "10"), not "__proto__" (see below). */
const key = fc.oneof(
  fc.constantFrom('sha256', 'sha', 'prev_sha256', 'seq', 'a', 'B', '', '-1', '01', '1.5', 'é', 'e\u0301', '日本', '😀', '\uff61', 'a\u0000b', '\u2028'),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
).filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== '__proto__');
/** Plain JSON values: well-formed strings, finite numbers (with -0 and exponents), undefined members. */
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER + 2, 0.1 + 0.2),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
    fc.constant(undefined),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 6 }),
  ),
}));

describe('the canonical form before JCS equals JCS on plain JSON values', () => {
  it('for random values, and for the same values after a JSON round trip (fast-check)', () => {
    fc.assert(
      fc.property(value.v, (v) => {
        if (v === undefined) return;
        expect(canonicalJson(v)).toBe(legacyCanonicalJson(v));
        const parsed = JSON.parse(JSON.stringify(v)) as unknown;
        expect(canonicalJson(parsed)).toBe(legacyCanonicalJson(parsed));
      }),
      { numRuns: runs(3000) },
    );
  });

  it('matches the example of RFC 8785 section 3.2.2', () => {
    const input = String.raw`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalJson(JSON.parse(input))).toBe(expected);
  });

  it('drops undefined members and nulls undefined array items, as before', () => {
    expect(canonicalJson({ b: undefined, a: { y: undefined, x: [undefined, 1] }, c: 1 })).toBe('{"a":{"x":[null,1]},"c":1}');
  });
});

describe('where the canonical form before JCS was not JCS (no record holds such values)', () => {
  it('array-index keys: JCS sorts them as strings, the old form put them first in numeric order', () => {
    const v = JSON.parse('{"a":1,"10":2,"9":3}') as unknown;
    expect(canonicalJson(v)).toBe('{"10":2,"9":3,"a":1}');
    expect(legacyCanonicalJson(v)).toBe('{"9":3,"10":2,"a":1}');
  });

  it('a "__proto__" member: JCS keeps it, the old form dropped it', () => {
    const v = JSON.parse('{"__proto__":{"a":1},"b":2}') as unknown;
    expect(canonicalJson(v)).toBe('{"__proto__":{"a":1},"b":2}');
    expect(legacyCanonicalJson(v)).toBe('{"b":2}');
  });

  it('values without a canonical form are refused (the old form escaped or nulled them)', () => {
    expect(() => canonicalJson({ s: 'x\ud800' })).toThrow(/surrogate/i);
    expect(() => canonicalJson([Number.NaN])).toThrow(/NaN/);
    expect(() => canonicalJson({ n: Number.POSITIVE_INFINITY })).toThrow(/Infinity/);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe('sha256Hex', () => {
  it('equals createHash("sha256") for strings (as UTF-8, lone surrogates included) and bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.uint8Array({ maxLength: 200 })), (data) => {
        expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
      }),
      { numRuns: runs(500) },
    );
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('{}')).toBe(sha('{}'));
  });
});

describe('canonicalMembers / joinMembers (one canonicalization, several hashed texts)', () => {
  it('joined, they are canonicalJson of the object, with or without any of its members', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.string(), { maxLength: 3 }), (obj, drop) => {
        const members = canonicalMembers(obj);
        expect(joinMembers(members)).toBe(canonicalJson(obj));
        const omitted = Object.fromEntries(Object.entries(obj).filter(([k]) => !drop.includes(k)));
        expect(joinMembers(members, drop)).toBe(canonicalJson(omitted));
      }),
      { numRuns: runs(300) },
    );
  });

  it('drop undefined members as canonicalJson does, and give every trace record of the example its hashes', () => {
    expect(joinMembers(canonicalMembers({ b: 1, a: undefined, c: [undefined] }))).toBe(canonicalJson({ b: 1, a: undefined, c: [undefined] }));
    const dir = path.resolve(import.meta.dirname, '../../.copilot-state.example/elicitation-traces');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
      const rec = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
      expect(sha256Hex(joinMembers(canonicalMembers(rec), ['sha256']))).toBe(rec.sha256);
    }
  });
});
