/**
 * The README's "Why" shows the per-file figure on the bundled example; this keeps it true. When
 * the plan engine changes what it proposes for examples/orders-service, this fails with the
 * numbers to write (run `copilot-onboarding propose --workspace examples/orders-service`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { figureFor } from '../../server/src/app/loads.js';
import { analyze } from '../../server/src/core/analyze.js';
import { figureLine } from '../../server/src/core/loads.js';
import { buildPlan } from '../../server/src/core/plan.js';
import { readSnapshot } from '../../server/src/io/snapshot.js';
import { EXAMPLE } from '../helpers/workspace.js';

describe('README: the per-file figure on the bundled example', () => {
  it('the table and the one line are what propose computes', async () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const snapshot = await readSnapshot(EXAMPLE);
    const plan = buildPlan({ snapshot, analysis: analyze(snapshot), overrides: [] });
    const f = figureFor(snapshot, plan);
    const cr = f.surfaces.find((s) => s.surface === 'code-review')!;
    const n = (v: number) => v.toLocaleString('en-US');
    const row = (s: typeof cr.before) => `| ${n(s.mean)} | ${n(s.median)} | ${n(s.p90)} | ${n(s.max)} |`;
    const created = plan.operations.filter((o) => o.op === 'create').length;
    const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    expect(readme).toContain(`(\`examples/orders-service\`, ${f.files} files;`);
    expect(readme).toContain(`| before: one ${n(f.alwaysOn.before)}-character \`.github/copilot-instructions.md\` ${row(cr.before)}`);
    expect(readme).toContain(`| after the plan: ${n(f.alwaysOn.after)} characters kept always on, ${words[created] ?? created} scoped files ${row(cr.after)}`);
    expect(readme.replace(/\n/g, ' ')).toContain(`"${figureLine(f)}"`);
  });
});
