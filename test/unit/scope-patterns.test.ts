/**
 * The failure patterns of scope inference seen on real monoliths, one test each: path evidence
 * over generic heading words, the section's language for test globs, the folders a body is about
 * over passing mentions, headingless bullet text grouped by topic.
 */
import { describe, expect, it } from 'vitest';
import { inferScope } from '../../server/src/core/scope.js';
import { FileIndex } from '../../server/src/core/file-index.js';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan } from '../../server/src/core/plan.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { REPO_WIDE_PATH } from '../../server/src/core/copilot-format.js';
import type { Snapshot } from '../../server/src/core/types.js';

const heading = (title: string, body: string, files: string[]) => inferScope({ title, kind: 'heading' }, `## ${title}\n\n${body}`, new FileIndex(files));

function snapshot(text: string, files: string[]): Snapshot {
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  return { sources: [{ path: REPO_WIDE_PATH, kind: 'copilot-repo', bytes, size: bytes.length, sha256: sha256Hex(bytes) }], refused: [], files: [REPO_WIDE_PATH, ...files].sort(), filesTruncated: false };
}

describe('scope patterns', () => {
  it('1. a generic word in the heading does not veto path evidence', () => {
    const files = ['src/billing_api/handlers.py', 'src/worker/main.py', 'web/App.tsx', 'web/routes/Home.tsx'];
    const billing = heading('Billing API patterns', '- Amounts are integers in cents.\n- Retries use `retry_with_backoff()`.\n', files);
    expect(billing.applyTo).toEqual(['src/billing_api/**']);
    expect(billing.evidence.join('\n')).toContain('names directory src/billing_api/');
    const perf = heading('Performance guidelines', '- Keep `web/` bundles small; lazy-load `web/routes/`.\n- Avoid layout thrashing.\n', files);
    expect(perf.applyTo).toContain('web/**');
    // A generic heading whose body names a folder in passing stays repository-wide.
    const design = heading('Design rules', ['- Reuse `src/worker/` for jobs.', '- Keep functions small.', '- No global state.', '- Prefer clarity.', '- Avoid magic numbers.'].join('\n'), files);
    expect(design.applyTo).toBeNull();
  });

  it('3. test globs follow the section language (Rust tests are .rs files under test folders)', () => {
    const files = ['crates/core/src/lib.rs', 'crates/core/tests/parse.rs', 'tests/integration.rs', 'web/app.test.ts', 'tests/Api.Tests/ProgramTests.cs'];
    const r = heading('Testing bar', 'Every change needs a `#[test]`. Run `cargo test --workspace` before pushing; use `assert_eq!`.\n', files);
    expect(r.applyTo).toEqual(['**/tests/**/*.rs']);
    expect(r.evidence.join('\n')).toContain("the section's language is rust");
  });

  it('4. the folders a section is about beat a passing mention; bare file names count when repeated', () => {
    const files = ['plugin_api.py', 'plugin_manager/__init__.py', 'plugin_manager/registry.py', 'static/html/index.html', 'app.py'];
    const body = 'Plugins implement `plugin_api.py`; `plugin_manager/` installs them. Templates follow `static/html/`.\n\n- New hooks go in `plugin_api.py`.\n- `plugin_manager/` never imports a plugin eagerly.\n';
    const r = heading('Extending the app', body, files);
    expect([...(r.applyTo ?? [])].sort()).toEqual(['plugin_api.py', 'plugin_manager/**']);
    expect(r.evidence.join('\n')).toContain('×2');
  });

  it('5. headingless bullet rules after an intro line are grouped by topic', () => {
    const text = [
      'Rules for this repository:',
      '- Use TypeScript strict mode everywhere; no `any` in exported TypeScript types.',
      '- Write tests with vitest: one `describe` per module.',
      '- Lint Python scripts with ruff; target Python 3.12.',
      '- Never commit secrets: tokens come from the environment.',
      '- React components are function components with hooks.',
      '',
    ].join('\n');
    const snap = snapshot(text, ['package.json', 'src/index.ts', 'src/index.test.ts', 'src/App.tsx', 'scripts/release.py']);
    const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
    const moved = plan.sections.filter((s) => s.applyTo !== null).map((s) => s.title);
    expect(moved).toEqual(['TypeScript', 'Testing', 'Python', 'React']);
    expect(plan.sections.find((s) => s.title === 'General')!.destination).toBe(REPO_WIDE_PATH);
    expect(plan.lossless.ok).toBe(true);
  });
});

describe('leftover', () => {
  it('6. reports the repository-wide size after the split and candidate scopes for its large sections', () => {
    const big = Array.from({ length: 40 }, (_, i) => `- Rule ${i}: handlers in \`src/orders/\` validate ids; see \`src/orders/\` for the helpers and keep Python code typed.`).join('\n');
    const text = `# Guide\n\n## Service rules\n\n${big}\n\n## Communication\n\n${'Be brief and kind. '.repeat(300)}\n`;
    const snap = snapshot(text, ['src/orders/api.py', 'src/orders/db.py', 'src/web/app.ts', 'README.md']);
    const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
    expect(plan.leftover!.limit).toBe(4000);
    expect(plan.leftover!.chars).toBeGreaterThan(4000);
    const comm = plan.leftover!.suggestions.find((x) => x.title === 'Communication');
    expect(comm!.chars).toBeGreaterThan(1000);
    expect(plan.riskReasons.join('\n')).toContain('over the 4000 that code review reads');
    expect(plan.lossless.ok).toBe(true);
  });
});
