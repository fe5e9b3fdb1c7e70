/**
 * docs/schemas/ must be exactly what the zod schemas generate today (the JSON
 * Schema of both trace kinds is published in docs/). Regenerate with `npm run schemas`
 * (or UPDATE_SCHEMAS=1 npx vitest run test/unit/schemas-doc.test.ts) and commit the result.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSchemas, syncSchemas } from '../../server/src/cli/schemas.js';
import { ElicitationTraceSchema } from '../../server/src/schemas/trace.js';
import { unsealed } from '../helpers/traces.js';

const DIR = path.resolve(import.meta.dirname, '../../docs/schemas');
const EXPECTED = [
  'backup-manifest.schema.json',
  'elicitation-trace.schema.json',
  'onboarding-state.schema.json',
  'plan.schema.json',
  'question.schema.json',
  'sampling-trace.schema.json',
  'trace-checkpoint.schema.json',
];

describe('docs/schemas', () => {
  it('covers every persisted artifact', () => {
    expect([...generateSchemas().keys()].sort()).toEqual(EXPECTED);
  });

  it('the committed files are current (regenerate with `npm run schemas`)', async () => {
    if (process.env.UPDATE_SCHEMAS) await syncSchemas(DIR, true);
    const onDisk = readdirSync(DIR).filter((f) => f.endsWith('.schema.json')).sort();
    expect(onDisk, 'stray or missing files in docs/schemas/').toEqual(EXPECTED);
    for (const [file, text] of generateSchemas()) {
      expect(readFileSync(path.join(DIR, file), 'utf8'), `docs/schemas/${file} is stale: run \`npm run schemas\``).toBe(text);
    }
  });

  it('are valid JSON with a title and the 2020-12 dialect', () => {
    for (const [file, text] of generateSchemas()) {
      const doc = JSON.parse(text) as Record<string, unknown>;
      expect(doc.$schema, file).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc.title, file).toMatch(/copilot-onboarding/);
      expect(doc.type, file).toBe('object');
    }
  });

  it('the elicitation trace schema names every field of a real trace as required or optional', () => {
    const doc = JSON.parse(generateSchemas().get('elicitation-trace.schema.json')!) as { properties: Record<string, unknown>; required: string[] };
    const sample = { ...unsealed(1), seq: 1, prev_sha256: null, sha256: 'a'.repeat(64) };
    expect(ElicitationTraceSchema.parse(sample)).toBeTruthy();
    for (const k of Object.keys(sample)) expect(Object.keys(doc.properties)).toContain(k);
    expect(doc.required).toEqual(expect.arrayContaining(['format', 'seq', 'timestamp', 'action', 'channel', 'message', 'schema', 'response', 'outcome', 'sha256', 'prev_sha256']));
  });

  it('--check reports stale and missing files without writing', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'co-schemas-'));
    try {
      expect((await syncSchemas(tmp, false)).every((f) => f.status === 'missing')).toBe(true);
      expect(readdirSync(tmp)).toEqual([]);
      expect((await syncSchemas(tmp, true)).every((f) => f.status === 'written')).toBe(true);
      expect((await syncSchemas(tmp, false)).every((f) => f.status === 'unchanged')).toBe(true);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
