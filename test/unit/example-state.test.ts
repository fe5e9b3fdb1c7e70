/**
 * .copilot-state.example/ is produced by examples/make-state-example.mjs from a real run.
 * Every file must parse with the real schemas, and both trace chains must verify.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { OnboardingStateSchema } from '../../server/src/schemas/state.js';
import { ManifestSchema } from '../../server/src/schemas/manifest.js';
import { QuestionEntrySchema } from '../../server/src/schemas/question.js';
import { ElicitationTraceSchema, SamplingTraceSchema } from '../../server/src/schemas/trace.js';
import { loadPlan } from '../../server/src/io/plans.js';
import { readManifest, verifyBackup } from '../../server/src/io/backup.js';
import { verifyChain } from '../../server/src/io/traces.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../.copilot-state.example');
const files = (dir: string) => readdirSync(path.join(EXAMPLE, dir)).filter((f) => !f.startsWith('.')).sort();
const json = (rel: string) => JSON.parse(readFileSync(path.join(EXAMPLE, rel), 'utf8')) as unknown;

// The verifiers read <root>/.copilot-state/, so look at a copy under that name.
const root = mkdtempSync(path.join(os.tmpdir(), 'co-example-check-'));
cpSync(EXAMPLE, path.join(root, '.copilot-state'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('.copilot-state.example', () => {
  it('onboarding.json parses with the state schema', () => {
    expect(OnboardingStateSchema.safeParse(json('onboarding.json')).success).toBe(true);
  });

  it('every plan parses and still hashes to its id', async () => {
    const plans = files('plans');
    expect(plans.length).toBeGreaterThan(0);
    for (const f of plans) await expect(loadPlan(root, f.replace(/\.json$/, ''))).resolves.toBeTruthy();
  });

  it('every backup manifest parses, and its archive matches it', async () => {
    const manifests = files('backups').filter((f) => f.endsWith('.manifest.json'));
    expect(manifests.length).toBeGreaterThan(0);
    for (const f of manifests) {
      expect(ManifestSchema.safeParse(json(`backups/${f}`)).success).toBe(true);
      const m = await readManifest(root, f.replace(/\.manifest\.json$/, ''));
      expect(await verifyBackup(root, m)).toEqual({ ok: true });
    }
  });

  it('every question file parses with the question schema', () => {
    const qs = files('questions');
    expect(qs.length).toBeGreaterThan(0);
    for (const f of qs) expect(QuestionEntrySchema.safeParse(parse(readFileSync(path.join(EXAMPLE, 'questions', f), 'utf8'))).success).toBe(true);
  });

  it('every trace parses, both chains verify, and the outcomes shown cover every kind the flow produces', async () => {
    const el = files('elicitation-traces').map((f) => ElicitationTraceSchema.parse(json(`elicitation-traces/${f}`)));
    const sa = files('sampling-traces').map((f) => SamplingTraceSchema.parse(json(`sampling-traces/${f}`)));
    expect(new Set(el.map((t) => t.outcome))).toEqual(new Set(['answered', 'declined', 'cancelled', 'approved', 'unsupported', 'timeout']));
    expect(new Set(el.map((t) => t.action))).toEqual(new Set(['question', 'approve', 'migrate', 'rollback']));
    expect(new Set(sa.map((t) => t.outcome))).toEqual(new Set(['narrated', 'unsupported']));
    expect((await verifyChain(root, 'elicitation')).problems).toEqual([]);
    expect((await verifyChain(root, 'sampling')).problems).toEqual([]);
  });
});
