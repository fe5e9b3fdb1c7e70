/**
 * The labelled evaluation set (test/fixtures/eval/) scored on the sources: the thresholds scope
 * inference has reached are held here, and every plan of the set is lossless with evidence on
 * every section.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan } from '../../server/src/core/plan.js';
// @ts-expect-error: a plain ESM script without types
import { evaluate } from '../../bench/eval-labelled.mjs';

describe('labelled scope evaluation', () => {
  // Precision was 95 % (18/19) until general headings about how code is written ("Code conventions",
  // "Performance constraints") were scoped to the repository's code: az-scout's maintainers kept those
  // two repository-wide, ten real cases' maintainers scoped theirs (docs/evaluation.md, fifth session).
  it('reaches recall >= 70 % and precision >= 85 %, loses no byte, explains every decision', () => {
    const r = evaluate({ analyze, buildPlan });
    expect(r.cases.length).toBeGreaterThanOrEqual(8);
    expect(r.recall).toBeGreaterThanOrEqual(0.7);
    expect(r.precision).toBeGreaterThanOrEqual(0.85);
    expect(r.lossless).toBe(true);
    expect(r.withoutEvidence).toBe(0);
  });
});
