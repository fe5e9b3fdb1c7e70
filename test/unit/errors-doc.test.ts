/**
 * docs/errors.md is generated from core/errors.ts (ERROR_DOCS): every code, its meaning and its
 * next step. A code added without documentation fails the typecheck (ERROR_DOCS `satisfies`
 * Record<ErrorCode, …>); a doc that drifted from the code fails here. Update deliberately with
 * `npx vitest run test/unit/errors-doc.test.ts -u` and review the diff.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_DOCS, ErrorCode, errorsMarkdown } from '../../server/src/core/errors.js';

const SRC = path.resolve(import.meta.dirname, '../../server/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('docs/errors.md', () => {
  it('is generated from core/errors.ts and current', async () => {
    await expect(errorsMarkdown()).toMatchFileSnapshot('../../docs/errors.md');
  });

  it('lists every code with a meaning and a next step', () => {
    const md = errorsMarkdown();
    for (const c of Object.values(ErrorCode)) {
      expect(md, c).toContain(`| \`${c}\` |`);
      expect(ERROR_DOCS[c].meaning.length, c).toBeGreaterThan(20);
      expect(ERROR_DOCS[c].next.length, c).toBeGreaterThan(10);
    }
  });

  it('every code the server refuses with is an ErrorCode (no string literal codes)', () => {
    const known = new Set<string>(Object.values(ErrorCode));
    const literal: string[] = [];
    for (const f of sources(SRC)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:refusal\(\s*\{\s*code:\s*|new OnboardingError\(\s*)'([A-Z][A-Z_]+)'/g)) if (!known.has(m[1]!)) literal.push(`${path.relative(SRC, f)}: ${m[1]}`);
    }
    expect(literal).toEqual([]);
  });
});
