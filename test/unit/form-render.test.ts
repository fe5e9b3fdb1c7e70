/**
 * The form renderer: right as CommonMark (rendered with markdown-it, as VS Code does) and as
 * plain text, bounded, and sanitized, for small, large and hostile plans.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { approveForm, FORM_MAX_CHARS, migrateForm, questionForm, rollbackForm } from '../../server/src/core/form-render.js';
import { code, safeJson, sanitize, thousands } from '../../server/src/core/sanitize.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { loadFigure } from '../../server/src/core/loads.js';
import { runs } from '../helpers/runs.js';

const md = new MarkdownIt('commonmark');
const WHERE = { planFile: '.copilot-state/plans/0123456789abcdef.json', backupsDir: '.copilot-state/backups/' };
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** HTML text back to characters (markdown-it escapes only these four). */
const unhtml = (h: string) => h.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

type Out = { path: string; applyTo: string | null; size: number };

function plan(outputs: Out[], extra: Partial<Plan> = {}): Plan {
  return {
    format: 'copilot-onboarding/plan@1',
    pattern: 'structured',
    sources: [{ path: '.github/copilot-instructions.md', kind: 'copilot-repo', size: 12_345, sha256: 'a'.repeat(64) }],
    sections: outputs.map((o, i) => ({
      id: `s${i}`,
      sourcePath: '.github/copilot-instructions.md',
      title: `Section ${i}`,
      kind: 'heading' as const,
      proposed: true,
      startLine: i,
      endLine: i,
      ranges: [],
      destination: o.path,
      applyTo: o.applyTo,
      evidence: [],
      decidedBy: 'inference' as const,
    })),
    operations: [
      { op: 'modify', path: '.github/copilot-instructions.md', size: 1_234, sha256: 'b'.repeat(64), content: '', previousSha256: 'a'.repeat(64) },
      ...outputs.map((o) => ({ op: 'create' as const, path: o.path, size: o.size, sha256: 'c'.repeat(64), content: '', previousSha256: null })),
    ],
    problems: [],
    risk: 'low',
    riskReasons: [],
    overrides: [],
    lossless: { outputs: [], coveredSources: ['.github/copilot-instructions.md'], ok: true },
    planId: '0123456789abcdef',
    sha256: 'd'.repeat(64),
    ...extra,
  };
}

const many = (n: number): Out[] =>
  Array.from({ length: n }, (_, i) => ({ path: `.github/instructions/topic-${i}.instructions.md`, applyTo: i % 2 ? '**/*.ts,**/*.tsx' : 'src/**/_private/*.py', size: 100 + i }));

/** The HTML markdown-it makes of a message, and every check the issue asks for. */
function checkRendered(message: string, mustShowInCode: string[]): string {
  expect(message.length).toBeLessThanOrEqual(FORM_MAX_CHARS);
  expect(message).not.toMatch(UNSAFE);
  const html = md.render(message);
  expect(html).not.toMatch(/<(strong|em|img|a|script|h[1-6]|hr|blockquote)\b/);
  // Only the tags a paragraph/list/code rendering produces: nothing raw from our text.
  for (const tag of html.matchAll(/<\/?([a-z0-9]+)/g)) expect(['p', 'ul', 'li', 'code']).toContain(tag[1]);
  const codes = [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => unhtml(m[1]!));
  for (const s of mustShowInCode) expect(codes).toContain(s);
  // Every block is its own paragraph or list: blocks are separated by blank lines.
  const blocks = message.split('\n\n');
  expect(blocks.length).toBeGreaterThan(2);
  return html;
}

describe('approve form', () => {
  it('a small plan: summary first, every path and glob verbatim in a code span', () => {
    const p = plan(many(3));
    const m = approveForm(p, WHERE);
    checkRendered(m, ['.github/copilot-instructions.md', '.github/instructions/topic-1.instructions.md', '**/*.ts,**/*.tsx', 'src/**/_private/*.py', '0123456789abcdef']);
    expect(m.indexOf('Risk: low')).toBeLessThan(m.indexOf('topic-0'));
    expect(m.indexOf('Summary: 1 file modified, 3 files created, 0 files deleted.')).toBeLessThan(m.indexOf('Files (4)'));
    expect(m).toContain('Choose Yes (true) to approve');
  });

  it('74 and 754 files: at most 20 listed, the rest counted and referenced, under 4,000 characters', () => {
    for (const n of [74, 754]) {
      const m = approveForm(plan(many(n)), WHERE);
      checkRendered(m, ['copilot-onboarding://plan/current', WHERE.planFile]);
      const listed = m.split('\n').filter((l) => l.startsWith('- Create') || l.startsWith('- Modify'));
      expect(listed.length).toBeLessThanOrEqual(20);
      expect(m).toMatch(new RegExp(`… and ${(n + 1 - listed.length).toLocaleString('en-US')} more`));
    }
  });

  it('hostile names and globs: no control or bidi character, no emphasis, bounded', () => {
    const evil = ['.github/instructions/\u202Egnp.exe\u202C.instructions.md', '.github/instructions/a\nb\u2028c.instructions.md', `.github/instructions/${'x'.repeat(100_000)}.instructions.md`, '.github/instructions/\u001b]8;;http://evil\u0007click\u001b]8;;\u0007.instructions.md', '.github/instructions/`tick``s`.instructions.md', '.github/instructions/<img src=x>.instructions.md'];
    const p = plan(
      evil.map((path) => ({ path, applyTo: `**/*.ts,${'*'.repeat(50_000)}`, size: 1 })),
      { problems: [{ code: 'X', severity: 'warning', message: `**bold** <b>html</b> [link](http://x) ${'y'.repeat(10_000)}`, path: 'a', lines: [1] }], riskReasons: ['*reason* \u202E'] },
    );
    const m = approveForm(p, WHERE);
    checkRendered(m, []);
    expect(m).toContain('\\u202E');
    expect(m).toContain('\\x1B');
    expect(m).toContain('\\x0A');
  });

  it('fast-check: any path and glob is shown literally inside <code> and the message stays bounded', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ path: fc.string({ maxLength: 300, unit: 'binary' }), applyTo: fc.option(fc.string({ maxLength: 300, unit: 'binary' })), size: fc.nat() }), { minLength: 1, maxLength: 40 }), (outs) => {
        const m = approveForm(plan(outs), WHERE);
        expect(m.length).toBeLessThanOrEqual(FORM_MAX_CHARS);
        expect(m).not.toMatch(UNSAFE);
        const html = md.render(m);
        expect(html).not.toMatch(/<(strong|em|a|img)\b/);
      }),
      { numRuns: runs(200) },
    );
  });
});

describe('destination files and what loads where', () => {
  it('each file with its glob, its size and its first three section titles; the figure is one line of the summary', () => {
    const p = plan(many(2));
    const extra = ['Testing', 'Vitest', 'Fixtures', 'Mocks'].map((title, i) => ({ ...p.sections[0]!, id: `t${i}`, title }));
    p.sections.push(...extra, { ...p.sections[0]!, id: 'keep', title: 'Communication', destination: '.github/copilot-instructions.md', applyTo: null });
    const figure = loadFigure(['a.ts', 'src/b.py'], [{ path: '.github/copilot-instructions.md', text: 'x'.repeat(45_600) }], [{ path: '.github/copilot-instructions.md', text: 'x'.repeat(6_100) }]);
    const m = approveForm(p, WHERE, figure);
    checkRendered(m, ['src/**/_private/*.py']);
    expect(m).toContain('- Create `.github/instructions/topic-0.instructions.md` for files matching `src/**/_private/*.py` (100 bytes), sections: Section 0; Testing; Vitest and 2 more.');
    expect(m).toContain('- Create `.github/instructions/topic-1.instructions.md` for files matching `**/*.ts,**/*.tsx` (101 bytes), sections: Section 1.');
    expect(m).toContain('- Modify `.github/copilot-instructions.md` (12,345 → 1,234 bytes), keeping sections: Communication.');
    const line = 'Copilot attaches on average 6.1 K instruction characters per file instead of 45.6 K; at most 6.1 K.';
    expect(m.split('\n\n')[1]!.split('\n')).toContain(line);
    expect(m.indexOf(line)).toBeLessThan(m.indexOf('Files ('));
    expect(migrateForm(p, { ...WHERE, archive: 'a.tar.gz' }, figure)).toContain(line);
    expect(approveForm(p, WHERE)).not.toContain('Copilot attaches');
  });

  it('section titles are prose: no emphasis, no code span of their own', () => {
    const p = plan(many(1));
    p.sections[0]!.title = '**Bold** `tick` <b>x</b> [l](http://e)';
    const m = approveForm(p, WHERE);
    checkRendered(m, ['.github/instructions/topic-0.instructions.md']);
    expect(m).toContain('sections: \\*\\*Bold\\*\\* \\`tick\\`');
  });
});

describe('migrate and rollback forms', () => {
  it('migrate names the backup archive and both choices', () => {
    const m = migrateForm(plan(many(30)), { ...WHERE, archive: '.copilot-state/backups/20261124T000000Z-0123-abc.tar.gz' });
    checkRendered(m, ['.copilot-state/backups/20261124T000000Z-0123-abc.tar.gz', 'copilot-onboarding rollback']);
    expect(m.indexOf('Risk:')).toBeLessThan(m.indexOf('Files ('));
  });

  it('rollback lists edited files first with a warning, bounded for 1,000 files', () => {
    const restore = ['.github/copilot-instructions.md'];
    const remove = Array.from({ length: 1000 }, (_, i) => `.github/instructions/t${i}.instructions.md`);
    const m = rollbackForm({ migrationId: 'm1', archive: '.copilot-state/backups/m1.tar.gz', manifest: '.copilot-state/backups/m1.manifest.json', restore, remove, edited: ['.github/instructions/t999.instructions.md'], savedTo: '.copilot-state/backups/m1.edited/' });
    checkRendered(m, ['.github/instructions/t999.instructions.md', '.copilot-state/backups/m1.manifest.json', '.copilot-state/backups/m1.edited/']);
    expect(m.indexOf('WARNING: 1 file was edited')).toBeLessThan(m.indexOf('Files ('));
    expect(m.split('\n').find((l) => l.startsWith('- '))).toContain('t999');
  });
});

describe('sanitize and code', () => {
  it('escapes controls, bidi and separators visibly and cuts long strings with their size', () => {
    expect(sanitize('a\u001b[31mb')).toBe('a\\x1B[31mb');
    expect(sanitize('\u202Eabc\u2066')).toBe('\\u202Eabc\\u2066');
    expect(sanitize('x'.repeat(500), 10)).toBe(`${'x'.repeat(10)}… (500 bytes)`);
    expect(sanitize('😀'.repeat(10), 3)).toMatch(/^😀… \(40 bytes\)$/);
  });

  it('counts read as toLocaleString("en-US") writes them, without loading the locale data', () => {
    expect([0, 7, 999, 1000, 12345, 1234567, -4321].map(thousands)).toEqual(['0', '7', '999', '1,000', '12,345', '1,234,567', '-4,321']);
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true })), (n) => {
        expect(thousands(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: runs(300) },
    );
  });

  it('code spans survive any backtick run', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const html = md.renderInline(code(s));
        const inner = /^<code>([\s\S]*)<\/code>$/.exec(html);
        expect(inner).not.toBeNull();
        const shown = unhtml(inner![1]!);
        // CommonMark turns line endings into spaces and strips one padding space each side.
        expect(shown).toBe(sanitize(s).trim() === '' ? shown : sanitize(s));
      }),
      { numRuns: runs(300) },
    );
  });
});

describe('question form', () => {
  it('renders any question as CommonMark text that says exactly the question: no HTML, no unsafe character, lines kept', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40, unit: 'binary' }), { maxLength: 6 }), (lines) => {
        const q = lines.join('\n');
        const shown = questionForm(q);
        expect(shown).not.toBeNull();
        expect(shown!).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/u);
        expect(shown!.split('\n')).toHaveLength(q.split(/\r\n|\r|\n/).length);
        const html = md.render(shown!);
        expect(html).not.toMatch(/<(?!\/?(p|ul|ol|li|h[1-6]|hr|pre|code|blockquote|br)\b)[a-z]/i);
        expect(html).not.toMatch(/<(a|img|em|strong|script)\b/i);
      }),
      { numRuns: runs(300) },
    );
  });

  it('is null when the escaped question is longer than a form', () => {
    expect(questionForm('a'.repeat(FORM_MAX_CHARS))).toBe('a'.repeat(FORM_MAX_CHARS));
    expect(questionForm('<'.repeat(FORM_MAX_CHARS / 2 + 1))).toBeNull();
  });
});

describe('safeJson', () => {
  it('escapes DEL, C1, bidi and separators that JSON.stringify leaves raw; the value parses back unchanged', () => {
    const v = { a: 'x\u007f\u0085\u202E\u2028\u2029\ufeff\u001b', n: [1, 'é'] };
    const s = safeJson(v, 2);
    expect(s).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2028\u2029\ufeff\u001b]/u);
    expect(JSON.parse(s)).toEqual(v);
  });
});
