/**
 * A split's human files are told apart by where their text came from (docs/evaluation.md): the
 * share of a file's content lines that the monolith already had, as they were.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script of the bench, without types.
import { monolithLineShare } from '../../bench/eval-make-case.mjs';

const MONOLITH = '# Guide\n\n## Python\n\n- Use type hints on every public function.\n- Format with ruff before committing.\n\n## Docs\n\n- Write one sentence per line.\n';

describe('monolithLineShare', () => {
  it('is 1 for a file moved as written, whatever its list marks, heading marks, spacing or case', () => {
    expect(monolithLineShare(MONOLITH, '# Python rules\n\n* use  type hints on every public function.\n1. Format with ruff before committing.\n')).toBe(1);
  });

  it('counts only content lines (15 characters or more): headings and short lines are no evidence', () => {
    // Two content lines, one of them the monolith's; "## Python" and "- Be terse." do not count.
    expect(monolithLineShare(MONOLITH, '## Python\n\n- Use type hints on every public function.\n- Prefer dataclasses over plain dicts.\n- Be terse.\n')).toBe(0.5);
  });

  it('is 0 for a file written anew, and null for a body without content lines', () => {
    expect(monolithLineShare(MONOLITH, '- Run the linter on every change you make.\n')).toBe(0);
    expect(monolithLineShare(MONOLITH, '# Title\n\n- Short.\n')).toBeNull();
  });
});
