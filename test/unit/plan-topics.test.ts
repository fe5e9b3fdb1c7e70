/**
 * One file per topic: sections (and split subsections) that get the same scope go into one
 * instruction file, in source order, named after the topic, with a one-line description from
 * its headings; the lossless proof holds over the merged pieces. Also the regression case of
 * issue 20: a 100 KiB synthetic monolith of eight topics gives at most 12 files.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { SAME_FILES_JACCARD, buildPlan, verifyLossless } from '../../server/src/core/plan.js';
import { MIN_PART_BYTES } from '../../server/src/core/subsections.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { DESCRIPTION_MAX, REPO_WIDE_PATH, describeHeadings, readFrontMatter } from '../../server/src/core/copilot-format.js';
import { inferScope, topicName } from '../../server/src/core/scope.js';
import { FileIndex } from '../../server/src/core/file-index.js';
import type { Override, Plan } from '../../server/src/schemas/plan.js';
import type { Snapshot } from '../../server/src/core/types.js';
import { syntheticMonolith } from '../helpers/monolith.js';

const FILES = ['.github/workflows/ci.yml', 'package.json', 'scripts/export.py', 'scripts/lib/util.py', 'src/api/orders.ts', 'src/orders.test.ts', 'src/orders.ts', 'web/App.tsx'];

function planOf(text: string, files = FILES, overrides: Override[] = []): { plan: Plan; bytes: Buffer } {
  const bytes = Buffer.from(text, 'utf8');
  const snapshot: Snapshot = { sources: [{ path: REPO_WIDE_PATH, kind: 'copilot-repo', bytes, size: bytes.length, sha256: sha256Hex(bytes) }], refused: [], files: [...files].sort(), filesTruncated: false };
  return { plan: buildPlan({ snapshot, analysis: analyze(snapshot), overrides }), bytes };
}

function outputs(plan: Plan): Map<string, Uint8Array | null> {
  return new Map(plan.operations.map((o) => [o.path, o.content === null ? null : Buffer.from(o.content, 'utf8')]));
}

describe('one file per topic', () => {
  const text = [
    '# Project\n\nBe brief.\n\n',
    '## Python style\n\n- Use type hints in `*.py` files.\n\n',
    '## Commit messages\n\n- Imperative mood.\n\n',
    '## Python packaging\n\n- Keep `pyproject.toml` tidy; Python 3.12.\n\n',
    '## Python errors\n\n- Raise specific exceptions in Python.\n\n',
  ].join('');

  it('sections with the same scope share one file named after the topic, in source order', () => {
    const { plan, bytes } = planOf(text);
    const py = plan.sections.filter((s) => s.title.startsWith('Python'));
    expect(py.map((s) => s.destination)).toEqual(Array(3).fill('.github/instructions/python.instructions.md'));
    expect(py.every((s) => s.applyTo === '**/*.py')).toBe(true);
    expect(plan.operations.filter((o) => o.op === 'create').map((o) => o.path)).toEqual(['.github/instructions/python.instructions.md']);
    const file = plan.operations.find((o) => o.path.endsWith('python.instructions.md'))!.content!;
    const bodies = ['## Python style', '## Python packaging', '## Python errors'].map((h) => file.indexOf(h));
    expect(bodies.every((i, k) => i > 0 && (k === 0 || i > bodies[k - 1]!))).toBe(true);
    // Commit messages stay repository-wide, between two Python sections in the source.
    expect(plan.operations.find((o) => o.path === REPO_WIDE_PATH)!.content).toContain('## Commit messages');
    // Three pieces from three places of the source, in source order, each byte in exactly one output.
    const out = plan.lossless.outputs.find((o) => o.path.endsWith('python.instructions.md'))!;
    expect(out.pieces.length).toBe(2); // "Python packaging" and "Python errors" are adjacent: one piece
    expect(out.pieces[0]!.sourceEnd).toBeLessThan(out.pieces[1]!.sourceStart);
    expect(verifyLossless(plan, new Map([[REPO_WIDE_PATH, bytes]]), outputs(plan))).toEqual({ ok: true, errors: [] });
    expect(py[0]!.evidence.some((e) => /merged into \.github\/instructions\/python\.instructions\.md with/.test(e))).toBe(true);
  });

  it('a file named after its heading leaves out the section number and the word "instructions"', () => {
    const { plan } = planOf('# P\n\nBe brief.\n\n## 3. Makefile instructions\n\n- Keep `Makefile` targets phony.\n- Every `Makefile` target has a help line.\n', [...FILES, 'Makefile']);
    const s = plan.sections.find((x) => x.title === '3. Makefile instructions')!;
    expect(s.applyTo).toBe('Makefile');
    expect(s.destination).toBe('.github/instructions/makefile.instructions.md');
  });

  it('a file holding several headings gets a one-line description from them next to applyTo', () => {
    const { plan } = planOf(text);
    const fm = readFrontMatter(plan.operations.find((o) => o.path.endsWith('python.instructions.md'))!.content!);
    expect(fm.applyTo).toBe('**/*.py');
    expect(fm.description).toBe('Python style; Python packaging; Python errors');
  });

  it('different scopes stay apart; an explicit destination still names its own file', () => {
    const { plan } = planOf(text, FILES, [{ section: 'Python errors', destination: 'errors', applyTo: 'scripts/**' }]);
    const dest = Object.fromEntries(plan.sections.map((s) => [s.title, s.destination]));
    expect(dest['Python style']).toBe('.github/instructions/python.instructions.md');
    expect(dest['Python packaging']).toBe('.github/instructions/python.instructions.md');
    expect(dest['Python errors']).toBe('.github/instructions/errors.instructions.md');
  });

  it('an inferred topic equal to an explicit destination merges into it', () => {
    const { plan } = planOf(text, FILES, [{ section: 'Commit messages', destination: 'python', applyTo: '**/*.py' }]);
    expect(new Set(plan.sections.filter((s) => s.kind !== 'preamble').map((s) => s.destination))).toEqual(new Set(['.github/instructions/python.instructions.md']));
  });

  it('a second scope with the same name is named after its first heading, not with a number', () => {
    const files = ['backend/server.ts', 'backend/z21.ts', 'tests/backend/z21.test.ts', 'README.md'];
    const text = '# Project\n\nBe brief.\n\n## Backend\n\n- Keep handlers thin.\n\n## Z21 protocol rules\n\n- Decode every frame in one place.\n';
    const { plan } = planOf(text, files, [
      { section: 'Backend', applyTo: 'backend/**' },
      { section: 'Z21 protocol rules', applyTo: 'backend/**,tests/backend/**' },
    ]);
    const dest = Object.fromEntries(plan.sections.map((s) => [s.title, s.destination]));
    expect(dest['Backend']).toBe('.github/instructions/backend.instructions.md');
    expect(dest['Z21 protocol rules']).toBe('.github/instructions/z21-protocol-rules.instructions.md');
    expect(plan.lossless.ok).toBe(true);
  });

  it('a topic name never takes an existing file: the slug gets a suffix', () => {
    const { plan } = planOf(text, [...FILES, '.github/instructions/python.instructions.md']);
    expect(plan.sections.find((s) => s.title === 'Python style')!.destination).toBe('.github/instructions/python-2.instructions.md');
  });
});

describe('topicName', () => {
  it('names a scope after its taxonomy topic, test files, or its folder', () => {
    expect(topicName(['**/*.py'])).toBe('Python');
    expect(topicName(['**/*.tsx'])).toBe('React');
    expect(topicName(['**/*.ts', '**/*.tsx'])).toBe('TypeScript');
    // Angular is TypeScript with HTML templates: it names only a scope holding both.
    expect(topicName(['**/*.ts'])).toBe('TypeScript');
    expect(topicName(['**/*.html'])).toBe('HTML');
    expect(topicName(['**/*.ts', '**/*.html'])).toBe('Angular');
    expect(topicName(['**/*.test.ts', '**/test_*.py'])).toBe('Testing');
    expect(topicName(['.github/workflows/**'])).toBe('CI');
    expect(topicName(['src/api/**'])).toBe('api');
    expect(topicName(['frontend/**', 'backend/**'])).toBe('frontend backend');
    expect(topicName(['src/**', '**/*.py'])).toBeNull();
    expect(topicName([])).toBeNull();
  });
});

describe('describeHeadings', () => {
  it('is one bounded line of distinct titles without emphasis, then how many more', () => {
    expect(describeHeadings(['**CRITICAL: Tests**', 'Tests', 'Tests'], 'x')).toBe('CRITICAL: Tests; Tests');
    expect(describeHeadings([], 'fallback')).toBe('fallback');
    expect(describeHeadings(['Copilot instructions for `.github/{actions,workflows}/**/*.{yml,yaml}` files', 'Python **/*.py files', 'snake_case names', '_Emphasis_ and __strong__', '``a`b``'], 'x')).toBe(
      'Copilot instructions for .github/{actions,workflows}/**/*.{yml,yaml} files; Python **/*.py files; snake_case names; Emphasis and strong; a`b',
    );
    expect(describeHeadings(['2. Frontend Guidelines', '1.3 Forms', '4) Routing', '2024 roadmap', '3.'], 'x')).toBe('Frontend Guidelines; Forms; Routing; 2024 roadmap; 3.');
    const many = Array.from({ length: 40 }, (_, i) => `Python rules ${i + 1}`);
    const d = describeHeadings(many, 'x');
    expect(d).toMatch(/^Python rules 1; Python rules 2; .* and \d+ more$/);
    expect(d.length).toBeLessThanOrEqual(DESCRIPTION_MAX + ' and 40 more'.length);
    expect(d).not.toMatch(/[\r\n]/);
    expect(describeHeadings(['x'.repeat(1000)], 'y').length).toBeLessThanOrEqual(DESCRIPTION_MAX);
  });
});

describe('the 100 KiB eight-topic monolith (issue 20)', () => {
  const TREE = ['package.json', 'README.md', 'src/index.ts', 'src/app.tsx', 'src/app.test.ts', 'scripts/build.py', 'cmd/server/main.go', '.github/workflows/ci.yml', 'docs/guide.md', 'db/migrations/001.sql'];
  it('gives at most 12 files, never two with the same applyTo, and loses no byte', async () => {
    const text = await syntheticMonolith(100 * 1024, 42);
    const { plan, bytes } = planOf(text, TREE);
    const created = plan.operations.filter((o) => o.op === 'create');
    expect(created.length).toBeGreaterThanOrEqual(6);
    expect(created.length).toBeLessThanOrEqual(12);
    const scopes = created.map((o) => readFrontMatter(o.content!).applyTo);
    expect(new Set(scopes).size).toBe(scopes.length);
    expect(created.map((o) => o.path)).toEqual(expect.arrayContaining(['.github/instructions/python.instructions.md', '.github/instructions/go.instructions.md', '.github/instructions/ci.instructions.md']));
    expect(plan.lossless.ok).toBe(true);
    expect(verifyLossless(plan, new Map([[REPO_WIDE_PATH, bytes]]), outputs(plan)).ok).toBe(true);
  });
});

describe('scopes from the repository\'s evidence (issue 20 §2)', () => {
  const scope = (title: string, body: string, files: string[]) => inferScope({ title, kind: 'heading' }, `## ${title}\n\n${body}`, new FileIndex(files));

  it('a heading of generic words never makes a folder scope because a folder shares the word', () => {
    const files = ['web/overview/Range.tsx', 'web/App.tsx', 'src/main.py', 'src/api/routes.py'];
    expect(scope('Overview', '- This service answers questions.\n', files).applyTo).toBeNull();
    expect(scope('Architecture', '- Layers talk through interfaces.\n', [...files, 'docs/architecture/a.md']).applyTo).toBeNull();
    // A folder's own name still names it.
    expect(scope('API', '- Validate every request.\n', files).applyTo).toEqual(['src/api/**']);
  });

  it('a folder named by a heading word is one a maintainer would name: at most three levels down', () => {
    const files = ['src/PowerShell/Kestrun/Public/Logging/core/Close.ps1', 'src/PowerShell/Kestrun/Public/Logging/x.ps1', 'src/a.cs'];
    expect(scope('Core patterns', '- Keep it simple.\n', files).applyTo).toBeNull();
  });

  it('tests: the test folder of the tree when nearly all its tests live there', () => {
    const files = ['tests/test_a.py', 'tests/unit/test_b.py', 'tests/conftest.py', 'tests/data/x.json', 'pkg/main.py'];
    const r = scope('Testing', '- Use pytest fixtures.\n', files);
    expect(r.applyTo).toEqual(['tests/**']);
    expect(r.evidence.join('\n')).toContain('under tests/');
    // Tests next to the code: the file patterns.
    const colocated = scope('Testing', '- Use vitest.\n', ['src/a.ts', 'src/a.test.ts', 'web/b.test.ts']);
    expect(colocated.applyTo).toEqual(['**/*.test.ts']);
  });

  it('under "rules" or "guidelines", a folder named twice is the scope; under a how-to-work heading it must carry the section', () => {
    const files = ['src/billing/a.py', 'src/worker/main.py', 'web/App.tsx'];
    const twice = scope('Design guidelines', '- Money lives in `src/billing/`.\n- Keep it small.\n- Never float.\n- Round half even.\n- Every rate in `src/billing/` is a Decimal.\n- Log amounts.\n- Test rounding.\n- Document.\n', files);
    expect(twice.applyTo).toEqual(['src/billing/**']);
    // Twice in a long chapter of other rules is in passing.
    const long = Array.from({ length: 40 }, (_, i) => `- Rule ${i}: keep it simple.`).join('\n');
    expect(scope('Design guidelines', `- Money lives in \`src/billing/\`.\n${long}\n- See \`src/billing/\`.\n`, files).applyTo).toBeNull();
    const commits = scope('Commit messages', '- Mention `src/billing/` changes.\n- Use the imperative.\n- Keep subjects short.\n- Reference issues.\n- One change per commit.\n- Also name `src/billing/` in the body.\n- Sign off.\n- No WIP.\n', files);
    expect(commits.applyTo).toBeNull();
  });
});

describe('more evidence from the tree', () => {
  const scope = (title: string, body: string, files: string[]) => inferScope({ title, kind: 'heading' }, `## ${title}\n\n${body}`, new FileIndex(files));

  it('a file at the root named by the heading is path evidence (VERSION, CHANGELOG.md, Makefile)', () => {
    const files = ['VERSION', 'CHANGELOG.md', 'Makefile', 'docs/a.md', 'src/version.py'];
    expect(scope('VERSION file rules', '- Bump it on release.\n', files).applyTo).toEqual(['VERSION']);
    expect(scope('CHANGELOG rules', '- Keep an Unreleased section.\n', files).applyTo).toEqual(['CHANGELOG.md']);
    expect(scope('Makefile targets', '- Every target is .PHONY.\n', files).applyTo).toEqual(['Makefile']);
    // A word that only looks like a file name in lower case is not one.
    expect(scope('Version control', '- Rebase often.\n', files).applyTo).toBeNull();
  });

  it('a documentation section that names the docs folder is scoped to it, not to every Markdown file', () => {
    const files = ['docs/index.md', 'docs/_layouts/page.html', 'README.md', 'src/a.ts'];
    expect(scope('Documentation site', '- Pages live in `docs/`; build with Jekyll.\n', files).applyTo).toEqual(['docs/**']);
    expect(scope('Markdown', '- One sentence per line.\n', files).applyTo).toEqual(['**/*.md']);
  });

  it('the language of the code fences scopes a section without other evidence', () => {
    const files = ['app/models.py', 'app/views.py', 'web/a.ts'];
    const body = '- Prefer async.\n\n```python\nasync def f(): ...\n```\n\n```python\nawait f()\n```\n\n```bash\nuv run app\n```\n';
    const r = scope('Async programming', body, files);
    expect(r.applyTo).toEqual(['**/*.py']);
    expect(r.evidence.join('\n')).toContain('code examples are py');
    // Examples in two languages say nothing about one kind of file.
    expect(scope('Async programming', `${body}\n\`\`\`ts\nawait g()\n\`\`\`\n\`\`\`ts\nx\n\`\`\`\n`, files).applyTo).toBeNull();
  });
});

describe('one file per taxonomy topic', () => {
  it('test scopes of different languages share one testing file with their globs joined', () => {
    const text = '## Testing\n\n- Use vitest for `*.test.ts` files.\n\n## Commits\n\n- Imperative.\n\n## Python testing\n\n- Use pytest.\n';
    const { plan } = planOf(text, ['src/a.ts', 'src/a.test.ts', 'pkg/test_a.py', 'pkg/a.py']);
    const t = plan.sections.filter((s) => /testing/i.test(s.title));
    expect(t.map((s) => s.destination)).toEqual(Array(2).fill('.github/instructions/testing.instructions.md'));
    expect(t[0]!.applyTo).toBe('**/*.test.ts,**/test_*.py');
  });
});

describe('excludeAgent from the heading (issue 20 §2)', () => {
  const fm = (plan: Plan, path: string) => readFrontMatter(plan.operations.find((o) => o.path === path)!.content!);

  it('a file whose every section says its rules are for code review is skipped by the coding agent', () => {
    const { plan } = planOf('# Project\n\nBe brief.\n\n## Python review guidelines\n\n- Flag bare `except:` in Python.\n- Ask for type hints in `*.py` files.\n\n## TypeScript style\n\n- Use strict TypeScript in `*.ts` files.\n\n');
    const review = plan.sections.find((s) => s.title === 'Python review guidelines')!;
    expect(fm(plan, review.destination).excludeAgent).toBe('coding-agent');
    expect(review.evidence.join('\n')).toContain('its heading says its rules are for code review only: excludeAgent "coding-agent"');
    // The other files exclude nothing.
    const ts = plan.sections.find((s) => s.title === 'TypeScript style')!;
    expect(fm(plan, ts.destination).excludeAgent).toBeNull();
  });

  it('only for the coding agent: skipped by code review; a generic "AI coding agent instructions" title excludes nothing', () => {
    const only = planOf('# Project\n\nBe brief.\n\n## Python scripts (coding agent only)\n\n- Run `ruff` on `*.py` files before pushing Python.\n\n').plan;
    const s = only.sections.find((x) => x.title.startsWith('Python scripts'))!;
    expect(fm(only, s.destination).excludeAgent).toBe('code-review');
    const generic = planOf('# Project\n\nBe brief.\n\n## Python for AI coding agents\n\n- Run `ruff` on `*.py` files before pushing Python.\n\n').plan;
    const g = generic.sections.find((x) => x.title.startsWith('Python for'))!;
    expect(g.applyTo).toBe('**/*.py');
    expect(fm(generic, g.destination).excludeAgent).toBeNull();
  });

  it('a review section that shares its file with other sections does not make a file of its own, and excludes nothing', () => {
    const { plan } = planOf('# Project\n\nBe brief.\n\n## Python style\n\n- Use type hints in `*.py` files.\n\n## Python review guidelines\n\n- Flag bare `except:` in Python.\n\n');
    const dests = new Set(plan.sections.filter((s) => s.applyTo !== null).map((s) => s.destination));
    expect([...dests]).toEqual(['.github/instructions/python.instructions.md']);
    expect(fm(plan, '.github/instructions/python.instructions.md').excludeAgent).toBeNull();
  });
});

describe('scopes that load on nearly the same files are one topic (issue 20 §1)', () => {
  // The backend is the Python of this tree: `backend/**` and `**/*.py` match nearly the same files.
  const files = [...['api', 'db', 'jobs', 'models', 'routes', 'auth', 'mail', 'cache', 'util'].map((n) => `backend/app/${n}.py`), 'backend/requirements.txt', 'frontend/src/App.tsx', 'frontend/src/main.tsx', 'README.md'];
  const text = [
    '# Project\n\nBe brief.\n\n',
    '## Python style\n\n- Use type hints in Python; format with ruff.\n\n',
    '## Commit messages\n\n- Imperative mood.\n\n',
    '## Backend\n\n- Routes live in `backend/app/routes.py`; keep handlers thin in `backend/`.\n\n',
  ].join('');

  it('go into one file whose applyTo joins both scopes, in source order, losslessly', () => {
    const { plan, bytes } = planOf(text, files);
    const creates = plan.operations.filter((o) => o.op === 'create');
    expect(creates.map((o) => o.path)).toEqual(['.github/instructions/python.instructions.md']);
    const [py, be] = ['Python style', 'Backend'].map((t) => plan.sections.find((s) => s.title === t)!);
    expect(py!.destination).toBe(be!.destination);
    expect(py!.applyTo).toBe('**/*.py,backend/**');
    const file = creates[0]!.content!;
    expect(file.indexOf('## Python style')).toBeLessThan(file.indexOf('## Backend'));
    expect(verifyLossless(plan, new Map([[REPO_WIDE_PATH, bytes]]), outputs(plan))).toEqual({ ok: true, errors: [] });
  });

  it('a joined glob whose files another joined glob already matches is left out', () => {
    // Without `backend/requirements.txt`, every file of `backend/**` is a `.py` file.
    const { plan } = planOf(text, files.filter((f) => !f.endsWith('requirements.txt')));
    expect(plan.sections.find((s) => s.title === 'Backend')!.applyTo).toBe('**/*.py');
    // A person's applyTo stays as given, covered globs included.
    const given = planOf(text, files.filter((f) => !f.endsWith('requirements.txt')), [{ section: plan.sections.find((s) => s.title === 'Backend')!.id, applyTo: '**/*.py,backend/**' }]).plan;
    expect(given.sections.find((s) => s.title === 'Backend')!.applyTo).toBe('**/*.py,backend/**');
  });

  it('scopes that share fewer files stay apart', () => {
    // With a frontend as large as the backend, `backend/**` is no longer nearly "all Python".
    const wide = [...files, ...Array.from({ length: 12 }, (_, i) => `tools/gen${i}.py`)];
    const { plan } = planOf(text, wide);
    expect(plan.operations.filter((o) => o.op === 'create').length).toBe(2);
    expect(SAME_FILES_JACCARD).toBeGreaterThan(0.5);
  });
});

describe('a subsection of a few lines stays with its chapter (issue 20 §1)', () => {
  const long = (what: string, n: number) => Array.from({ length: n }, (_, i) => `- ${what} rule ${i}: keep it explicit, small and tested; prefer clear names over comments.`).join('\n');
  const text = (docs: string) =>
    ['# Guide\n', '## Rust style\n', 'Format with rustfmt; `.rs` files only.\n', long('Rust', 30), '', '### Writing docs\n', docs, ''].join('\n');
  const files = ['crates/a/src/lib.rs', 'crates/b/src/lib.rs', 'docs/guide.md', 'README.md'];
  it(`under ${MIN_PART_BYTES} bytes its own scope does not take it out`, () => {
    const { plan } = planOf(text('Docs in `docs/` are Markdown; one sentence per line.'), files);
    const docs = plan.sections.find((s) => s.title === 'Writing docs');
    // Not split from its chapter: the whole "Rust style" section, docs part included, is one piece for **/*.rs.
    expect(docs).toBeUndefined();
    expect(plan.sections.find((s) => s.title === 'Rust style')!.applyTo).toBe('**/*.rs');
  });
  it('a larger one with its own scope leaves', () => {
    const { plan } = planOf(text(`Docs in \`docs/\` are Markdown; one sentence per line.\n${long('Markdown', 8)}`), files);
    expect(plan.sections.find((s) => s.title === 'Writing docs')!.applyTo).toBe('docs/**');
  });
  it('body keywords alone do not take a part out of its chapter', () => {
    const py = Array.from({ length: 8 }, (_, i) => `- Step ${i}: the helper is Python with Django; it installs with pip, checks mypy and ruff output, and reads pyproject.toml.`).join('\n');
    const withPy = [...files, 'scripts/gen.py', 'scripts/check.py'];
    const { plan } = planOf(text(py).replace('### Writing docs', '### Release helpers'), withPy);
    // The part's keywords (Python, Django, pip, mypy, ruff) would give **/*.py on their own; inside the Rust chapter they do not.
    expect(plan.sections.find((s) => s.title === 'Release helpers')).toBeUndefined();
    expect(plan.sections.find((s) => s.title === 'Rust style')!.applyTo).toBe('**/*.rs');
    const alone = planOf(`# Guide\n\n## Release helpers\n\n${py}\n`, withPy).plan;
    expect(alone.sections.find((s) => s.title === 'Release helpers')!.applyTo).toBe('**/*.py');
  });
});

describe("the file's title chapter is scoped by its heading, not by what its body names (issue 20 §2)", () => {
  // A title with the whole file under it: its body names `scripts/` twice and shows Python, as a
  // project's general rules do; what it names is the file's subject, not the files it is for.
  const body = "Acme exports orders. Helpers live in `scripts/lib/`; run them from `scripts/lib/` with Python 3.12.\n\n```python\nimport util\n```\n\n";
  const titled = `# Acme assistant instructions\n\n${body}## Setup\n\nRun \`make\` once.\n\n# Commits\n\nImperative mood.\n`;

  it('a title chapter with headings under it stays repository-wide on body paths and code examples', () => {
    const { plan } = planOf(titled);
    const title = plan.sections.find((s) => s.title === 'Acme assistant instructions')!;
    expect(title.applyTo).toBeNull();
    expect(title.destination).toBe(REPO_WIDE_PATH);
    expect(title.evidence.join(' ')).toContain("the file's title chapter holds rules of every kind");
    expect(plan.operations.filter((o) => o.op === 'create')).toEqual([]);
    // Its heading still scopes it when the heading names the files.
    const named = planOf(titled.replace('# Acme assistant instructions', '# Python instructions')).plan;
    expect(named.sections.find((s) => s.title === 'Python instructions')!.applyTo).toBe('**/*.py');
  });

  it('a title chapter that addresses Copilot names the project: a topic word in the name does not scope it', () => {
    const project = `# Copilot instructions for acme-python\n\nAcme exports orders.\n\n## Setup\n\nRun \`make\` once.\n\n# Commits\n\nImperative mood.\n`;
    const { plan } = planOf(project);
    expect(plan.sections.find((s) => s.title.startsWith('Copilot instructions'))!.applyTo).toBeNull();
    // Without the assistant in it, the heading names Python for what it is.
    const python = planOf(project.replace('# Copilot instructions for acme-python', '# Python rules for acme')).plan;
    expect(python.sections.find((s) => s.title === 'Python rules for acme')!.applyTo).toBe('**/*.py');
    // A path the heading writes still scopes it.
    const scripts = planOf(project.replace('# Copilot instructions for acme-python', '# Copilot instructions for `scripts/lib/`')).plan;
    expect(scripts.sections.find((s) => s.title.startsWith('Copilot instructions'))!.applyTo).toBe('scripts/lib/**');
  });

  it('the same text under a first heading that is a section among others keeps its body evidence', () => {
    const { plan } = planOf(`# Export helpers\n\n${body}# Commits\n\nImperative mood.\n`);
    expect(plan.sections.find((s) => s.title === 'Export helpers')!.applyTo).toBe('scripts/lib/**');
  });
});

describe('an override may name a part of a section the plan keeps whole (the person decides it)', () => {
  // A project overview is a map: the plan never cuts it, even with a TypeScript part inside.
  const overview = [
    '# Commits\n\n- Imperative mood.\n\n',
    '# Project overview\n\nAcme exports orders. The code is in `src/`, the scripts in `scripts/`.\n\n',
    '## Layout\n\n- `src/api/` serves the orders.\n- `scripts/` exports them.\n\n',
    '## TypeScript style checks\n\n- Prefer `readonly` arrays.\n- No default exports.\n\n',
    '## Release\n\n- Tag from main.\n',
  ].join('');

  it('without an override the section stays whole', () => {
    const { plan } = planOf(overview);
    expect(plan.sections.map((s) => s.title)).toEqual(['Commits', 'Project overview']);
    expect(plan.operations).toEqual([]);
  });

  it('an override naming a part by its heading cuts the section: that part moves, the others keep the whole section\'s place', () => {
    const { plan, bytes } = planOf(overview, FILES, [{ section: 'TypeScript style checks', applyTo: '**/*.ts' }]);
    expect(plan.sections.map((s) => [s.title, s.destination])).toEqual([
      ['Commits', REPO_WIDE_PATH],
      ['Project overview', REPO_WIDE_PATH],
      ['Layout', REPO_WIDE_PATH],
      ['TypeScript style checks', '.github/instructions/typescript.instructions.md'],
      ['Release', REPO_WIDE_PATH],
    ]);
    const ts = plan.sections.find((s) => s.title === 'TypeScript style checks')!;
    expect(ts).toMatchObject({ applyTo: '**/*.ts', decidedBy: 'override' });
    expect(plan.sections.find((s) => s.title === 'Layout')!.evidence[0]).toBe('cut from "Project overview": an override names one of its parts');
    // The moved part is no longer always on; every byte still lands in exactly one output.
    expect(plan.operations.find((o) => o.path === REPO_WIDE_PATH)!.content).not.toContain('readonly');
    expect(verifyLossless(plan, new Map([[REPO_WIDE_PATH, bytes]]), outputs(plan))).toEqual({ ok: true, errors: [] });
    // The same part named by its id, as the cut plan lists it, gives the same plan.
    expect(planOf(overview, FILES, [{ section: ts.id, applyTo: '**/*.ts' }]).plan.planId).toBe(plan.planId);
  });

  it('the leftover report lists a section kept whole, then its parts of 1,000 characters or more, under ids an override can name', () => {
    const long = (rule: string): string => Array.from({ length: 40 }, (_, i) => `- ${rule} ${i}.\n`).join('');
    const text = overview.replace('- No default exports.\n', `- No default exports.\n${long('Keep TypeScript types exact, rule')}`).replace('- Tag from main.\n', `- Tag from main.\n${long('Release step: tag it, sign it, publish it')}`);
    const { plan } = planOf(text);
    const listed = plan.leftover!.suggestions.map((x) => x.title);
    // The section itself first (under its id), then its parts of that size; the small "Layout" part is left out.
    expect([...listed].sort()).toEqual(['Project overview', 'Release', 'TypeScript style checks']);
    expect(plan.leftover!.suggestions.find((x) => x.title === 'Project overview')!.section).toMatch(/^s\d+-project-overview$/);
    const ts = plan.leftover!.suggestions.find((x) => x.title === 'TypeScript style checks')!;
    expect(ts.section).toMatch(/^s\d+\.2-typescript-style-checks$/);
    expect(ts.candidates[0]!.applyTo).toMatch(/^\*\*\/\*\.ts\b/);
    // The id it lists is one an override can name.
    const cut = planOf(text, FILES, [{ section: ts.section, applyTo: '**/*.ts' }]).plan;
    expect(cut.sections.find((s) => s.id === ts.section)).toMatchObject({ applyTo: '**/*.ts', decidedBy: 'override' });
  });

  it('a listed part is offered first the scope its heading alone gives', () => {
    const long = (rule: string): string => Array.from({ length: 40 }, (_, i) => `- ${rule} ${i}.\n`).join('');
    const text = overview.replace('## Release\n', `## Python helpers\n\n${long('Keep each helper short and give it one job, rule')}\n## Release\n`);
    const { plan } = planOf(text);
    const part = plan.leftover!.suggestions.find((x) => x.title === 'Python helpers')!;
    // Its body names no language and no path: only its heading says what it is about.
    expect(part.candidates[0]).toMatchObject({ applyTo: '**/*.py' });
    expect(part.candidates[0]!.evidence.join(' ')).toContain('Python helpers');
    // The section kept whole is not offered its heading's scope: "Project overview" names no files.
    expect(plan.leftover!.suggestions.find((x) => x.title === 'Project overview')!.candidates.map((c) => c.applyTo)).not.toContain('**/*.py');
  });

  it('a large section written to a folder is offered its language as another scope; not a small one, not one an override decides', () => {
    const files = ['cmd/tool/main.go', 'cmd/tool/flags.go', 'internal/store/db.go', 'internal/store/cache.go', 'internal/api/server.go', 'internal/api/routes.go', 'pkg/util/strings.go', 'README.md'];
    const rules = (n: number): string => Array.from({ length: n }, (_, i) => `- Every command parses its flags first, rule ${i}.\n`).join('');
    const go = '```go\nfunc main() { run() }\n```\n\n```go\nfunc run() error { return nil }\n```\n';
    const text = (n: number): string => `# Guide\n\nKeep commits small.\n\n## Commands in \`cmd/\`\n\n${rules(n)}- Call the server in \`internal/api/\`, never the store.\n\n${go}\n## Commits\n\n- Imperative mood.\n`;
    const { plan } = planOf(text(30), files);
    const cmd = plan.sections.find((s) => s.title === 'Commands in `cmd/`')!;
    expect(cmd.applyTo).toBe('cmd/**');
    // The heading's folder is the scope; its Go code is Go's files, most of them elsewhere: a question for the person.
    // Not the folder it names in passing (`internal/api/`): paths a written section names are seldom its scope.
    expect(plan.alternatives).toEqual([{ section: cmd.id, title: cmd.title, chars: expect.any(Number), applyTo: 'cmd/**', candidates: [{ applyTo: '**/*.go', evidence: ["the section's language is go"] }] }]);
    expect(plan.alternatives![0]!.chars).toBeGreaterThanOrEqual(1000);
    // Where the folder holds most of the Go, the language is the same scope: no question.
    expect(planOf(text(30), ['cmd/tool/main.go', 'cmd/tool/flags.go', 'cmd/tool/run.go', 'README.md']).plan.alternatives).toEqual([]);
    // Under 1,000 characters, or decided by the person, it is not asked about.
    expect(planOf(text(5), files).plan.alternatives).toEqual([]);
    expect(planOf(text(30), files, [{ section: cmd.id, applyTo: 'cmd/**' }]).plan.alternatives).toEqual([]);
  });

  it('a heading that a section of the plan has names that section, not a part of the same name elsewhere', () => {
    const twice = overview.replace('# Commits\n\n- Imperative mood.\n\n', '# Release\n\n- Changelog first.\n\n');
    const { plan } = planOf(twice, FILES, [{ section: 'Release', keepRepoWide: true }]);
    // The top-level "Release" takes the override; the overview, with its own "Release" part, is not cut.
    expect(plan.sections.map((s) => s.title)).toEqual(['Release', 'Project overview']);
    expect(plan.sections[0]).toMatchObject({ decidedBy: 'override' });
  });

  it('a name that is no section and no part of one is still refused, listing the sections', () => {
    expect(() => planOf(overview, FILES, [{ section: 'Nothing like it', applyTo: '**/*.ts' }])).toThrow(/Unknown section "Nothing like it"/);
  });
});
