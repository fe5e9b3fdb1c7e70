/**
 * The diff of the repository-wide file that the plan view shows (core/repo-wide-diff.ts): read
 * from the plan's lossless record, every line of the file before is either kept (' ') or moved
 * (`-`, with the file it goes to), generated text is `+`; long runs are counted in a `…` row,
 * never dropped silently; untrusted text is sanitized and cut.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan } from '../../server/src/core/plan.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { REPO_WIDE_PATH } from '../../server/src/core/copilot-format.js';
import { CONTEXT, LINE_MAX, MAX_ROWS, MOVED_SHOWN, repoWideDiff, type DiffRow, type RepoWideDiff } from '../../server/src/core/repo-wide-diff.js';
import type { Snapshot } from '../../server/src/core/types.js';
import { EXAMPLE_MONOLITH } from '../helpers/example-md.js';

const FILES = ['.github/copilot-instructions.md', '.github/workflows/ci.yml', 'package.json', 'scripts/export.py', 'src/orders.test.ts', 'src/orders.ts', 'web/App.tsx'];

function planOf(text: string, whole = false) {
  const bytes = new TextEncoder().encode(text);
  const snapshot: Snapshot = { sources: [{ path: REPO_WIDE_PATH, kind: 'copilot-repo', bytes, size: bytes.length, sha256: sha256Hex(bytes) }], refused: [], files: FILES, filesTruncated: false };
  const plan = buildPlan({ snapshot, analysis: analyze(snapshot), overrides: [] });
  return { plan, diff: repoWideDiff(plan, bytes, { whole }) };
}

/** Lines of the file before that a row stands for: 1 for ' ' and '-', the count a '…' row names. */
function beforeLines(rows: DiffRow[]): number {
  return rows.reduce((n, r) => n + (r.op === ' ' || r.op === '-' ? 1 : r.op === '…' && !r.text.includes('row') ? Number(/^([\d,]+)/.exec(r.text)![1]!.replace(/,/g, '')) : 0), 0);
}
const TS = '.github/instructions/typescript.instructions.md';

describe('repoWideDiff', () => {
  it('the example: what stays, each moved line with the file it goes to, unchanged runs counted', () => {
    const { plan, diff } = planOf(EXAMPLE_MONOLITH);
    const d = diff as RepoWideDiff;
    expect(d.path).toBe(REPO_WIDE_PATH);
    expect(d.op).toBe('modify');
    expect(d.before.lines).toBe(EXAMPLE_MONOLITH.split('\n').length - 1);
    expect(d.after.lines).toBe(plan.operations.find((o) => o.path === REPO_WIDE_PATH)!.content!.split('\n').length - 1);
    // Every line of the file before is accounted for, in order.
    expect(beforeLines(d.rows)).toBe(d.before.lines);
    expect(d.rows[0]).toEqual({ op: '…', text: '2 unchanged lines', to: null });
    expect(d.rows.find((r) => r.text === '## TypeScript')).toEqual({ op: '-', text: '## TypeScript', to: TS });
    expect(d.rows.find((r) => r.text === '- Prefer discriminated unions over enums.')).toMatchObject({ op: '-', to: TS });
    expect(d.rows.find((r) => r.text === '## Communication')).toEqual({ op: ' ', text: '## Communication', to: null });
    // Each moved line goes where the plan puts its section.
    expect(new Set(d.rows.filter((r) => r.op === '-').map((r) => r.to))).toEqual(new Set(plan.sections.filter((x) => x.applyTo !== null).map((x) => x.destination)));
    // The kept text reads, in order, as the file after (here no line is generated).
    const kept = d.rows.filter((r) => r.op === ' ').map((r) => r.text);
    expect(plan.operations.find((o) => o.path === REPO_WIDE_PATH)!.content!.endsWith(`${kept.join('\n')}\n`)).toBe(true);
  });

  it('a plan that leaves the repository-wide file as it is has no diff', () => {
    expect(planOf('# Rules\n\n- Be kind.\n').diff).toBeNull();
  });

  it('long runs: unchanged keeps CONTEXT lines by a change, moved shows MOVED_SHOWN lines, the rest is counted', () => {
    const extraTs = Array.from({ length: 60 }, (_, i) => `- TypeScript rule ${i}: use \`src/orders.ts\` types.`);
    const extraComm = Array.from({ length: 30 }, (_, i) => `- Communication rule ${i}.`);
    const text = EXAMPLE_MONOLITH.replace('- Prefer discriminated unions over enums.\n', `- Prefer discriminated unions over enums.\n${extraTs.join('\n')}\n`).replace('## React\n', `## Keep here\n\n${extraComm.join('\n')}\n\n## React\n`);
    const d = planOf(text).diff!;
    expect(beforeLines(d.rows)).toBe(d.before.lines);
    const tsRun = d.rows.filter((r) => r.to === TS);
    expect(tsRun.filter((r) => r.op === '-')).toHaveLength(MOVED_SHOWN);
    const moreTs = tsRun.find((r) => r.op === '…')!;
    expect(moreTs.text).toMatch(new RegExp(`^\\d+ more lines moved to ${TS.replace(/\./g, '\\.')}$`));
    // The kept section between two moved ones: CONTEXT lines at each end, the 33 - 2 × CONTEXT others counted.
    const at = d.rows.findIndex((r) => r.text === '## Keep here');
    expect(d.rows.slice(at - 1, at + 2 * CONTEXT + 2)).toEqual([
      { op: '-', text: '', to: '.github/instructions/testing.instructions.md' },
      { op: ' ', text: '## Keep here', to: null },
      { op: ' ', text: '', to: null },
      { op: '…', text: `${33 - 2 * CONTEXT} unchanged lines`, to: null },
      { op: ' ', text: '- Communication rule 29.', to: null },
      { op: ' ', text: '', to: null },
      { op: '-', text: '## React', to: '.github/instructions/react.instructions.md' },
    ]);
    expect(d.rows.length).toBeLessThan(beforeLines(d.rows));
  });

  it('hostile text: controls and bidi overrides become visible escapes, a long line is cut with its size', () => {
    const evil = `- Keep \u202Etxt.exe\u202C and \u001b[31mred\u001b[0m here.`;
    const long = `- ${'x'.repeat(5000)}`;
    const text = EXAMPLE_MONOLITH.replace('- Workflows pin actions by commit SHA.\n', `- Workflows pin actions by commit SHA.\n${evil}\n${long}\n`);
    const d = planOf(text).diff!;
    const all = d.rows.map((r) => r.text).join('\n');
    expect(all).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
    expect(all).toContain('\\u202Etxt.exe\\u202C and \\x1B[31mred\\x1B[0m');
    const cut = d.rows.find((r) => r.text.startsWith('- xxx'))!;
    expect(cut.text.length).toBeLessThan(LINE_MAX + 30);
    expect(cut.text).toMatch(/… \(5,002 bytes\)$/);
  });

  it(`at most ${MAX_ROWS} rows; the last says how many more`, () => {
    const sections = Array.from({ length: 80 }, (_, i) =>
      i % 2 ? `## Python scripts ${i}\n\n${Array.from({ length: 20 }, (_, j) => `- Python rule ${i}.${j} for \`scripts/export.py\`.`).join('\n')}\n` : `## Rule set ${i}\n\n${Array.from({ length: 20 }, (_, j) => `- General rule ${i}.${j}.`).join('\n')}\n`,
    );
    const d = planOf(`# Big\n\n${sections.join('\n')}`).diff!;
    expect(d.rows).toHaveLength(MAX_ROWS);
    expect(d.rows.at(-1)).toMatchObject({ op: '…', to: null });
    expect(d.rows.at(-1)!.text).toMatch(/^[\d,]+ more rows? of this diff not shown; every moved line is in its destination file$/);
  });

  it('whole: every line of the file before, in order, none cut or counted; the kept lines are the file after', () => {
    const sections = Array.from({ length: 80 }, (_, i) =>
      i % 2 ? `## Python scripts ${i}\n\n${Array.from({ length: 20 }, (_, j) => `- Python rule ${i}.${j} for \`scripts/export.py\`.`).join('\n')}\n` : `## Rule set ${i}\n\n${Array.from({ length: 20 }, (_, j) => `- General rule ${i}.${j}.`).join('\n')}\n`,
    );
    const long = `- ${'x'.repeat(5000)} \u202Eevil\u202C`;
    const text = `# Big\n\n${sections.join('\n')}\n${long}\n`;
    const { plan, diff } = planOf(text, true);
    const d = diff!;
    expect(planOf(text).diff!.rows).toHaveLength(MAX_ROWS);
    expect(d.rows.length).toBeGreaterThan(MAX_ROWS);
    expect(d.rows.filter((r) => r.op === '…')).toEqual([]);
    // One row per line of the file before (nothing is generated here), each the line itself.
    const lines = text.split('\n').slice(0, -1);
    expect(d.rows.map((r) => r.text)).toEqual(lines.map((l) => l.replace('\u202E', '\\u202E').replace('\u202C', '\\u202C')));
    // Long moved runs are whole: every line of a moved section, with the file it goes to.
    const moved = d.rows.filter((r) => r.op === '-');
    expect(moved.length).toBeGreaterThan(40 * 20);
    expect(new Set(moved.map((r) => r.to))).toEqual(new Set(plan.sections.filter((x) => x.applyTo !== null).map((x) => x.destination)));
    expect(d.rows.at(-1)!.text).toHaveLength(long.length + 10);
    const kept = d.rows.filter((r) => r.op === ' ').map((r) => r.text);
    expect(plan.operations.find((o) => o.path === REPO_WIDE_PATH)!.content!).toBe(`${kept.join('\n')}\n`);
  });
});
