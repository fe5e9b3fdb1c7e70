import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { inferScope as inferScopeIn } from '../../server/src/core/scope.js';
import { FileIndex } from '../../server/src/core/file-index.js';
import { SCAN_CAP, classifyBlock } from '../../server/src/core/keywords.js';
import { TOPICS } from '../../server/src/core/taxonomy.js';
import { splitApplyTo } from '../../server/src/core/copilot-format.js';
import { outsideCorpusFile } from '../helpers/corpus.js';

const EXAMPLE_FILES = [
  '.github/copilot-instructions.md',
  '.github/workflows/ci.yml',
  'package.json',
  'scripts/export.py',
  'src/orders.test.ts',
  'src/orders.ts',
  'web/App.tsx',
];

const h = (title: string) => ({ title, kind: 'heading' });
/** Scope inference over a file list (a plan builds one index for all its sections). */
const inferScope = (section: { title: string; kind: string; opensFile?: boolean }, text: string, files: readonly string[] | FileIndex) =>
  inferScopeIn(section, text, files instanceof FileIndex ? files : new FileIndex(files));
const globStat = (files: readonly string[] | FileIndex, glob: string) => (files instanceof FileIndex ? files : new FileIndex(files)).stat(glob);

describe('EXAMPLE.md sections', () => {
  const cases: Array<[string, string, string[] | null]> = [
    ['TypeScript', "## TypeScript\n\n- `strict` everywhere; no `any`.\n- Prefer discriminated unions over enums.\n\n```ts\n# a comment-looking line inside a fence is not a heading\ntype Paid = { kind: 'paid'; at: Date };\n```\n\n", ['**/*.ts', '**/*.tsx']],
    ['Testing', '## Testing\n\n- vitest; tests sit next to the code as `*.test.ts`.\n- A bug fix starts with a failing test.\n\n', ['**/*.test.ts']],
    ['React', '## React\n\n- Function components only; hooks at the top.\n\n', ['**/*.tsx']],
    ['Python scripts', '## Python scripts\n\n- Target Python 3.11; format with ruff.\n\n', ['**/*.py']],
    ['CI', '## CI\n\n- Workflows pin actions by commit SHA.\n\n', ['.github/workflows/**']],
    ['Communication', '## Communication\n\n- Answer in English, even when asked in another language.\n', null],
  ];
  it.each(cases)('%s', (title, text, expected) => {
    const r = inferScope(h(title), text, EXAMPLE_FILES);
    expect(r.applyTo).toEqual(expected);
    if (expected) {
      expect(r.evidence[0]).toBe(`heading "${title}"`);
      for (const g of expected) expect(r.evidence.some((e) => e.endsWith(`exists (matches ${g})`))).toBe(true);
    } else {
      expect(r.evidence.join(' ')).toMatch(/no scope/);
    }
  });

  it('evidence names what the text mentions', () => {
    expect(inferScope(h('Testing'), cases[1]![1], EXAMPLE_FILES).evidence).toContain('mentions "*.test.ts"');
    expect(inferScope(h('Testing'), cases[1]![1], EXAMPLE_FILES).evidence).toContain('src/orders.test.ts exists (matches **/*.test.ts)');
    expect(inferScope(h('CI'), cases[4]![1], EXAMPLE_FILES).evidence.join(' ')).toMatch(/"workflows"/);
  });

  it('the preamble and front matter stay repository-wide whatever they say', () => {
    const text = '# TypeScript service\n\nAll TypeScript, `*.ts` everywhere.\n';
    expect(inferScope({ title: 'Preamble', kind: 'preamble' }, text, EXAMPLE_FILES).applyTo).toBeNull();
    expect(inferScope({ title: 'Front matter', kind: 'frontmatter' }, text, EXAMPLE_FILES).applyTo).toBeNull();
  });

  it('CRLF and LF give the same result', () => {
    for (const [title, text] of cases) {
      expect(inferScope(h(title), text.replace(/\n/g, '\r\n'), EXAMPLE_FILES)).toEqual(inferScope(h(title), text, EXAMPLE_FILES));
    }
  });

  it('is deterministic and independent of the cache', () => {
    const shared = new FileIndex(EXAMPLE_FILES);
    for (const [title, text] of cases) {
      const a = inferScope(h(title), text, shared);
      const b = inferScope(h(title), text, [...EXAMPLE_FILES]);
      expect(b).toEqual(a);
      expect(inferScope(h(title), text, shared)).toEqual(a);
    }
  });
});

describe('directory and glob signals', () => {
  const files = [
    'crates/core/src/lib.rs',
    'crates/cli/src/main.rs',
    'src/pkg/azure_api/client.py',
    'src/pkg/azure_api/models.py',
    'src/api/routes.ts',
    'src/gen/schema.ts',
    'src/index.ts',
    'backend/app.py',
    'frontend/main.ts',
    'README.md',
    'docs/guide.md',
    'package.json',
  ];

  it('a mentioned directory that exists becomes <dir>/**', () => {
    expect(inferScope(h('Workspace members'), 'Files under crates/ follow the workspace rules.', files)).toMatchObject({ applyTo: ['crates/**'] });
    const az = inferScope(h('Azure client'), 'Code in `azure_api/` wraps the SDK.', files);
    expect(az.applyTo).toEqual(['src/pkg/azure_api/**']);
    expect(az.evidence.join(' ')).toMatch(/azure_api/);
    expect(inferScope(h('Handlers'), 'Handlers live in `src/api` and nowhere else.', files).applyTo).toEqual(['src/api/**']);
  });

  it('a directory that does not exist gives no scope', () => {
    expect(inferScope(h('Handlers'), 'Handlers live in `lib/handlers/`.', files).applyTo).toBeNull();
  });

  it('a heading that names a directory', () => {
    expect(inferScope(h('Backend'), '- Keep handlers thin.', files).applyTo).toEqual(['backend/**']);
    expect(inferScope(h('Frontend and backend folders'), '- Keep handlers thin.', files).applyTo).toEqual(['frontend/**', 'backend/**']);
    expect(inferScope(h('Azure API'), '- Retry on 429.', files).applyTo).toEqual(['src/pkg/azure_api/**']);
    // a heading with another word names a concept, not a folder (a performance heading is for the code)
    expect(inferScope(h('Backend performance tricks'), '- Keep handlers thin.', files).applyTo).not.toContain('backend/**');
    expect(inferScope(h('Backend tricks'), '- Keep handlers thin.', files).applyTo).toBeNull();
    expect(inferScope(h('`crates/` rules'), '- No unsafe.', files).applyTo).toEqual(['crates/**']);
  });

  it('an explicit glob in the text, kept only if it matches', () => {
    expect(inferScope(h('Generated code'), 'Never edit `src/gen/**` by hand.', files).applyTo).toEqual(['src/gen/**']);
    expect(inferScope(h('Generated code'), 'Never edit `out/**` by hand.', files).applyTo).toBeNull();
  });

  it('"**" and globs that cover everything stay repository-wide', () => {
    expect(inferScope(h('Everything'), 'Applies to `**/*` and `**`.', files).applyTo).toBeNull();
    const many = Array.from({ length: 50 }, (_, i) => `src/f${i}.ts`);
    expect(inferScope(h('Sources'), 'Code in `src/` is ours.', many).applyTo).toBeNull();
  });

  it('an overview naming many paths stays repository-wide', () => {
    const r = inferScope(h('Where things are'), '`src/api/`, `src/gen/`, `crates/`, `backend/`, `frontend/` and `docs/`.', files);
    expect(r.applyTo).toBeNull();
    expect(r.evidence.join(' ')).toMatch(/overview/);
  });

  it('a section naming three top-level parts of the repository is an overview, two are still its scope', () => {
    const tree = ['backend/api/a.java', 'backend/api/b.java', 'frontend/src/app.ts', 'frontend/src/b.ts', 'example/run.sh', 'example/x.sh', 'docs/a.md', 'README.md', 'pom.xml'];
    const body = ['- `backend/` serves the graph API; build it with Maven.', '- `frontend/` is the Vite app; run `npm run dev` in `frontend/`.', '- `example/` is a demo workload for `backend/`.', '- Start `example/` after the backend.'];
    const three = inferScope(h('Repository map'), body.join('\n'), tree);
    expect(three.applyTo).toBeNull();
    expect(three.evidence.join(' ')).toMatch(/mentions 3 different paths \(an overview\)/);
    const two = inferScope(h('Repository map'), [...body.slice(0, 2), '- Format `backend/` with Spotless.'].join('\n'), tree);
    expect(two.applyTo).toEqual(['backend/**', 'frontend/**']);
  });

  it('a project overview names paths to orient: they are not its scope', () => {
    const tree = ['src/AppCLI/main.cpp', 'src/AppCLI/cmd.cpp', 'src/Deploy/a.cs', 'src/Deploy/b.cs', 'docs/a.md', 'README.md'];
    const body = '- `src/AppCLI/` is the command line; `src/AppCLI/` builds the exe.\n- `src/Deploy/` is the COM API; `src/Deploy/` ships as a NuGet package.\n';
    const r = inferScope(h('Project Overview'), body, tree);
    expect(r.applyTo).toBeNull();
    expect(r.evidence.join(' ')).toMatch(/introduces the project/);
    // The same paths under a heading about rules for them are its scope.
    expect(inferScope(h('Native code rules'), body, tree).applyTo).toEqual(['src/AppCLI/**', 'src/Deploy/**']);
  });

  it('emphasis and bold are not globs', () => {
    expect(inferScope(h('Style'), '*Never* do that. **Always** do this.', ['never.ts', 'always.md']).applyTo).toBeNull();
  });

  it('paths inside code fences are not signals', () => {
    expect(inferScope(h('Misc'), '```\ncrates/\nsrc/gen/**\n```\n', files).applyTo).toBeNull();
  });
});

describe('keyword signals', () => {
  const files = ['a/b.go', 'src/x.ts', 'src/x.test.ts', 'tests/test_x.py', 'x.py', 'docs/a.md', 'Dockerfile', 'infra/main.tf', 'web/a.tsx', 'web/a.css'];

  it('a heading language without files stays repository-wide, saying why', () => {
    const r = inferScope(h('Rust'), '- Use clippy.', files);
    expect(r.applyTo).toBeNull();
    expect(r.evidence.join(' ')).toMatch(/no file matches \*\*\/\*\.rs/);
  });

  it('several unrelated languages in the heading stay repository-wide', () => {
    expect(inferScope(h('TypeScript, Python and Go'), '- Format everything.', files).applyTo).toBeNull();
    expect(inferScope(h('TypeScript and React'), '- Strict.', files).applyTo).toEqual(['**/*.ts', '**/*.tsx']);
    expect(inferScope(h('Go and Python'), '- Strict.', files).applyTo).toEqual(['**/*.py', '**/*.go']);
  });

  it('tests: language in the heading or tools in the body choose the pattern', () => {
    expect(inferScope(h('Python tests'), '- Use fixtures.', files).applyTo).toEqual(['**/test_*.py']);
    expect(inferScope(h('Testing'), '- We use pytest with fixtures.', files).applyTo).toEqual(['**/test_*.py']);
    expect(inferScope(h('Testing'), '- We use vitest.', files).applyTo).toEqual(['**/*.test.ts']);
    expect(inferScope(h('Go testing'), '- Table tests.', files).applyTo).toBeNull();
    expect(inferScope(h('Go testing'), '- Table tests.', [...files, 'a/b_test.go']).applyTo).toEqual(['**/*_test.go']);
  });

  it('"Documentation" needs a Markdown signal; JSDoc advice stays repository-wide', () => {
    expect(inferScope(h('Documentation'), '- Add JSDoc to every exported function.', files).applyTo).toBeNull();
    expect(inferScope(h('Documentation'), '- Markdown files use sentence case headings.', files).applyTo).toEqual(['**/*.md']);
    expect(inferScope(h('Docs'), '- Write `docs/*.md` pages in plain English.', files).applyTo).toEqual(['docs/*.md']);
  });

  it('a heading of nothing but a data format ("JSON instructions", "YAML") names its files; code about the format does not', () => {
    const data = [...EXAMPLE_FILES, 'config/app.json', 'config/ui.jsonc', 'deploy/values.yaml'];
    // "No comments" is a rule for JSON files, not documentation in the code.
    expect(inferScope(h('JSON Instructions'), '- Two spaces.\n- No comments (JSON does not support them).', data).applyTo).toEqual(['**/*.json', '**/*.jsonc']);
    expect(inferScope(h('YAML'), '- Two spaces, never tabs.', data).applyTo).toEqual(['**/*.yaml', '**/*.yml']);
    // Code that reads or writes JSON is about the code, however often its text says JSON.
    expect(inferScope(h('JSON Serialization'), '- Serialize JSON with `JSON.stringify`; parse JSON at the edge.\n- JSON keys are camelCase.', data).applyTo).toBeNull();
    expect(inferScope(h('Key JSON files'), '- `package.json` holds the scripts.', data).applyTo).not.toEqual(['**/*.json', '**/*.jsonc']);
    // Documentation about doc comments is still not about Markdown files.
    expect(inferScope(h('Documentation'), '- Keep doc comments short.', data).applyTo).toBeNull();
  });

  it('a heading naming a language and, by another word, a folder is for that language\'s files in that folder, unless the folder holds most of them', () => {
    const tree = ['src/app/main.py', 'src/app/models.py', 'src/app/views.py', 'tools/release.py', 'tools/lint.py', 'tools/README.md', 'backend/api.py', 'tests/test_app.py'];
    expect(inferScope(h('Python Tools Guidelines'), '- Each tool is a script with a `main()`.', tree)).toMatchObject({ applyTo: ['tools/**/*.py'], basis: 'heading' });
    expect(inferScope(h('Python Tools Guidelines'), '- Each tool is a script.', tree).evidence[0]).toBe('heading "Python Tools Guidelines" names Python and the folder tools/ (2 of the 7 Python files)');
    // Without the folder word, every Python file.
    expect(inferScope(h('Python Guidelines'), '- Use type hints.', tree).applyTo).toEqual(['**/*.py']);
    // A folder that holds most of the language's files is where the code is: every Python file.
    const backend = ['backend/a.py', 'backend/b.py', 'backend/c.py', 'backend/d.py', 'scripts/e.py'];
    expect(inferScope(h('Backend Python Guidelines'), '- Use type hints.', backend).applyTo).toEqual(['**/*.py']);
  });

  it('a CI heading naming the system narrows to its files', () => {
    const ci = ['.github/workflows/a.yml', 'azure-pipelines.yml', '.gitlab-ci.yml'];
    expect(inferScope(h('CI'), '- Pin versions.', ci).applyTo).toEqual(['.github/workflows/**', '**/.gitlab-ci.yml', '**/azure-pipelines*.yml']);
    expect(inferScope(h('Azure Pipelines'), '- Pin versions.', ci).applyTo).toEqual(['**/azure-pipelines*.yml']);
    expect(inferScope(h('GitHub Actions'), '- Pin versions.', ci).applyTo).toEqual(['.github/workflows/**']);
    // The singular names the same topic ("GitHub Action Plugins – Review Checklist").
    expect(inferScope(h('GitHub Action Plugins – Review Checklist'), '- Is every Action pinned to a commit SHA?', ci).applyTo).toEqual(['.github/workflows/**']);
  });

  it('infrastructure and styles', () => {
    expect(inferScope(h('Docker'), '- Multi-stage builds.', files).applyTo).toEqual(['**/Dockerfile']);
    expect(inferScope(h('Terraform'), '- Pin providers.', files).applyTo).toEqual(['**/*.tf']);
    expect(inferScope(h('Styling'), '- Use CSS variables.', files).applyTo).toEqual(['**/*.css']);
  });

  it('Docker rules are for Dockerfiles; Compose files only when the section speaks of Compose', () => {
    const tree = ['Dockerfile', 'services/api/Dockerfile', 'docker-compose.yml', 'src/main.go'];
    expect(inferScope(h('Docker'), '## Docker\n\n- Multi-stage builds.\n- Run as a non-root user.', tree).applyTo).toEqual(['**/Dockerfile']);
    expect(inferScope(h('Docker'), '## Docker\n\n- Multi-stage builds.\n- Start the stack with `docker compose up`.', tree).applyTo).toEqual(['**/Dockerfile', '**/docker-compose*.yml']);
  });

  it('body keywords alone need a strong, repeated, single-family signal', () => {
    expect(inferScope(h('Backend services'), 'Python only. Use Django views, ruff and mypy; pytest for tests. Python 3.12.', files).applyTo).toEqual(['**/*.py']);
    expect(inferScope(h('Backend services'), 'Written in Python.', files).applyTo).toBeNull();
    expect(inferScope(h('Backend services'), 'Python with Django and ruff; the UI is TypeScript with React and tsconfig strict.', files).applyTo).toBeNull();
  });

  it('general words outweigh generic topic nouns, not names', () => {
    expect(inferScope(h('Build & Test Commands'), '- `npm test` runs vitest.', files).applyTo).toBeNull();
    expect(inferScope(h('Testing guidelines'), '- One assert per test; vitest.', files).applyTo).toEqual(['**/*.test.ts']);
    expect(inferScope(h('Vitest setup'), '- Use the shared config.', files).applyTo).toEqual(['**/*.test.ts']);
    expect(inferScope(h('Developer workflows'), '- Python Django ruff mypy pytest.', files).applyTo).toBeNull();
  });

  it('installing or running a language\'s tools stays repository-wide, though the heading names the language', () => {
    const venv = '```python\nimport sys\n```\n\n```python\nprint(sys.prefix)\n```\n\n- Create `.venv` with Python 3.12 before running anything.\n';
    expect(inferScope(h('Python'), venv, files).applyTo).toEqual(['**/*.py']);
    const env = inferScope(h('Python virtual environment'), venv, files);
    expect(env.applyTo).toBeNull();
    expect(env.evidence.join('\n')).toContain('about setting up or running the tools');
    expect(inferScope(h('Running tests'), '- `npm test` runs vitest.', files).applyTo).toBeNull();
  });

  it('generic words in the body are no evidence on their own', () => {
    expect(inferScope(h('Environment variables'), 'Tests read env vars; tests and testing and e2e tests need them; mocks too.', files).applyTo).toBeNull();
  });

  it('general headings stay repository-wide even with language words in the body', () => {
    for (const t of ['Communication', 'General principles', 'Project overview', 'Always', 'Code review', 'Commit messages', 'Security']) {
      expect(inferScope(h(t), 'Python Python Python, Django, ruff, mypy, pytest.', files).applyTo).toBeNull();
    }
  });

  it('a topic section (proposed) is scoped by its topic name', () => {
    const r = inferScope({ title: 'Python', kind: 'topic' }, '- Target Python 3.11; format with ruff.', files);
    expect(r.applyTo).toEqual(['**/*.py']);
    expect(r.evidence[0]).toBe('topic "Python"');
  });

  it('every topic name is recognised as a heading of that topic', () => {
    for (const t of TOPICS) {
      const hit = t.heading.test(t.name) || (t.headingWeak?.test(t.name) ?? false) || (t.headingNeedsBody?.test(t.name) ?? false);
      expect(hit, t.name).toBe(true);
    }
  });

  it('classifyBlock is conservative', () => {
    expect(classifyBlock('- Target Python 3.11; format with ruff.')?.name).toBe('Python');
    expect(classifyBlock('**Testing:** use vitest for everything')?.name).toBe('Testing');
    expect(classifyBlock('Be concise and friendly.')).toBeNull();
    expect(classifyBlock('TypeScript for the API and Python for scripts.')).toBeNull();
    expect(classifyBlock('Note: use Python 3.12.')?.name).toBe('Python');
    expect(classifyBlock(`We care about readability. ${'Keep functions small and names clear. '.repeat(8)}The build also runs a Python step.`)).toBeNull();
  });
});

describe('cost', () => {
  it('caps scanning and caches glob results per file index', () => {
    const files = new FileIndex(Array.from({ length: 20_000 }, (_, i) => `pkg${i % 100}/f${i}.${['ts', 'py', 'go', 'md'][i % 4]}`));
    const huge = `## TypeScript\n\n${'- strict TypeScript with `src/` and `*.ts` and Python mentions.\n'.repeat(200_000)}`;
    expect(huge.length).toBeGreaterThan(10 * SCAN_CAP);
    const r = inferScope(h('TypeScript'), huge, files);
    expect(r.applyTo).toEqual(['**/*.ts']);
    // The same answer again (glob results are cached per file index; timing lives in bench/).
    expect(inferScope(h('TypeScript'), huge, files)).toEqual(r);
    expect(globStat(files, '**/*.ts')).toEqual({ count: 5000, first: 'pkg0/f0.ts' });
  });

  it('glob fast paths agree with picomatch', () => {
    const files = ['.ts', 'a/.ts', 'a.ts', 'a/b/c.ts', 'x.tsx', 'src', 'src/a', 'srcx/a', 'Dockerfile', 'infra/Dockerfile', 'a.test.ts', 'b/c.test.ts'];
    for (const g of ['**/*.ts', '**/*.test.ts', 'src/**', '**/Dockerfile', 'Dockerfile', '**/*.{ts,tsx}', 'a/**/*.ts']) {
      const m = picomatch(g, { dot: true });
      const expected = files.filter((f) => m(f));
      expect(globStat([...files], g), g).toEqual({ count: expected.length, first: expected[0] ?? null });
    }
  });
});

// ---------------------------------------------------------------- survey

/** A polyglot repository: one or two files of every common kind, so human globs can match. */
const POLYGLOT = [
  'src/index.ts', 'src/app.tsx', 'src/util.js', 'src/comp.jsx', 'lib/x.mjs', 'src/app.component.ts', 'src/index.test.ts', 'src/util.spec.js',
  'main.py', 'tests/test_main.py', 'pyproject.toml', 'requirements.txt', 'cmd/main.go', 'cmd/main_test.go', 'go.mod', 'src/lib.rs', 'Cargo.toml',
  'src/main/java/App.java', 'src/test/java/AppTest.java', 'pom.xml', 'build.gradle', 'app/Main.kt', 'build.gradle.kts', 'Program.cs', 'App.csproj',
  'Tests/ProgramTests.cs', 'Pages/Index.cshtml', 'Components/Comp.razor', 'Views/Main.xaml', 'app.rb', 'spec/app_spec.rb', 'index.php', 'main.swift',
  'lib/main.dart', 'script.sh', 'build.ps1', 'schema.sql', 'styles.css', 'theme.scss', 'index.html', 'README.md', 'docs/guide.md', 'blog/post.mdx',
  '.github/workflows/ci.yml', 'azure-pipelines.yml', 'Dockerfile', 'docker-compose.yml', 'infra/main.tf', 'infra/vars.tfvars', 'infra/main.bicep',
  'k8s/deploy.yaml', 'charts/app/templates/svc.yaml', 'Makefile', 'api.proto', 'schema.graphql', 'notebook.ipynb', 'App.vue', 'Comp.svelte',
  'main.c', 'main.cpp', 'util.h', 'CMakeLists.txt', 'package.json', 'tsconfig.json', 'host.json', 'vite.config.ts',
  '.github/instructions/x.instructions.md', '.github/prompts/x.prompt.md', 'skills/x/SKILL.md', 'analysis.R', 'report.Rmd', 'Main.scala',
  'lib/app.ex', 'init.lua', 'classes/A.cls', 'triggers/T.trigger', 'page.cfm', 'agent.genai.mjs', 'memory-bank/context.md', 'wp-content/plugins/x/x.php',
  '.github/hooks/pre.json', 'manifest.xml', 'Control.pcfproj', 'report.pbix',
];

interface SurveyRow {
  path: string;
  applyTo: string;
  description: string;
  heading: string;
}

/** The survey is not vendored: it runs when COPILOT_ONBOARDING_CORPUS names a folder holding it. */
const SURVEY = outsideCorpusFile('applyto-survey.tsv');

function readSurvey(file: string): SurveyRow[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const header = lines[0]!.split('\t');
  const col = (name: string): number => header.indexOf(name);
  return lines.slice(1).map((l) => {
    const c = l.split('\t');
    return { path: c[col('path')] ?? '', applyTo: c[col('applyTo')] ?? '', description: c[col('description')] ?? '', heading: c[col('first_heading')] ?? '' };
  });
}

const EVERYWHERE = new Set(['', '*', '**', '**/*']);

describe.runIf(SURVEY)('survey (corpus/applyto-survey.tsv)', () => {
  const rows = SURVEY ? readSurvey(SURVEY) : [];
  const results = rows.map((r) => {
    const title = r.heading || path.basename(r.path).replace(/\.instructions\.md$/, '').replace(/-/g, ' ');
    const ours = inferScope(h(title), `${title}\n\n${r.description}`, POLYGLOT).applyTo;
    const human = splitApplyTo(r.applyTo);
    const humanWide = human.length === 0 || human.every((g) => EVERYWHERE.has(g));
    const matched = (globs: string[]): Set<string> => {
      const ms = globs.map((g) => picomatch(g, { dot: true }));
      return new Set(POLYGLOT.filter((f) => ms.some((m) => m(f))));
    };
    let verdict: 'agree' | 'overlap' | 'disjoint' | 'we-scope-they-dont' | 'we-dont-they-scope';
    if (humanWide) verdict = ours ? 'we-scope-they-dont' : 'agree';
    else if (!ours) verdict = 'we-dont-they-scope';
    else {
      const a = matched(ours);
      const b = matched(human);
      const inter = [...a].filter((f) => b.has(f)).length;
      verdict = inter === 0 ? 'disjoint' : [...a].every((f) => b.has(f)) ? 'agree' : 'overlap';
    }
    return { row: r, title, ours, verdict };
  });
  const count = (v: string): number => results.filter((r) => r.verdict === v).length;
  const summary =
    `${rows.length} rows: ${count('agree')} agree, ${count('overlap')} overlap, ${count('disjoint')} disjoint, ` +
    `${count('we-scope-they-dont')} scoped where the human chose "**", ${count('we-dont-they-scope')} kept repo-wide where the human scoped`;

  it(`runs on every row — ${summary}`, () => {
    expect(rows.length).toBeGreaterThanOrEqual(90);
    const lines = results.map((r) => [r.verdict, r.title, r.row.applyTo || '(none)', r.ours ? r.ours.join(',') : '(repo-wide)'].join('\t'));
    const dir = path.join(os.tmpdir(), 'copilot-onboarding-survey');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'summary.tsv'), `${summary}\nverdict\ttitle\thuman\tours\n${lines.join('\n')}\n`);
    console.log(`survey: ${summary} (details: ${path.join(dir, 'summary.tsv')})`);
    // Conservative by design: a wrong scope hides instructions from files that need them, a
    // missed one only keeps them repository-wide. Disjoint answers must stay rare.
    expect(count('disjoint')).toBeLessThanOrEqual(Math.ceil(rows.length * 0.05));
    expect(count('agree') + count('overlap')).toBeGreaterThanOrEqual(Math.ceil(rows.length * 0.4));
  });
});

describe('reading lists and code comments are not documentation files (issue 20, docs/evaluation.md)', () => {
  const files = ['README.md', 'docs/guide.md', 'docs/api.md', 'src/Orders/OrderDto.cs', 'src/Orders/Order.cs'];
  it('a "Further Reading" list of docs stays repository-wide', () => {
    const text = '### Further Reading\n\n- The docs: `docs/guide.md` and the documentation index.\n- More docs in the README.\n';
    const r = inferScope(h('Further Reading'), text, files);
    expect(r.applyTo).toBeNull();
    expect(r.evidence.join(' ')).toMatch(/general section/);
  });
  it('"Documentation Comments" on DTOs is about code comments, not markdown files', () => {
    const text = '### Documentation Comments\n\n- Every public property of a DTO has an XML documentation comment.\n- The docs generator reads them; keep documentation short.\n';
    expect(inferScope(h('Documentation Comments'), text, files).applyTo).toBeNull();
    // "XML documentation" in .NET is the doc comments of the code, not Markdown pages.
    const xml = '### XML Documentation Standards\n\n- Every public API has `<summary>` documentation.\n- Markdown in the docs is not used for the API reference.\n';
    expect(inferScope(h('XML Documentation Standards'), xml, files).applyTo).toBeNull();
  });
  it('a language heading with "docstrings" is still that language', () => {
    const files2 = [...files, 'tools/gen.py'];
    expect(inferScope(h('Python docstrings'), '### Python docstrings\n\n- Google style docstrings in every module.\n', files2).applyTo).toEqual(['**/*.py']);
  });
  it('documentation headings still scope to markdown', () => {
    expect(inferScope(h('Markdown documentation'), '## Markdown documentation\n\n- One sentence per line in `*.md` files.\n', files).applyTo).toEqual(['**/*.md']);
  });
  it('keeping docs in sync or up to date is a duty of every change, not a rule for Markdown files', () => {
    const body = '- When a command changes, update `README.md` and the docs in the same commit.\n- Markdown tables list every flag.\n';
    for (const title of ['Keeping Docs in Sync', 'Rules to keep documentation up-to-date', 'Keeping Documentation Current']) {
      const r = inferScope(h(title), `## ${title}\n\n${body}`, files);
      expect(r.applyTo).toBeNull();
      expect(r.evidence.join('\n')).toContain('how to work');
    }
    expect(inferScope(h('Writing docs'), `## Writing docs\n\n${body}`, files).applyTo).toEqual(['**/*.md']);
  });
});

describe('CI sections: rules for writing workflow files, or what the pipelines check (issue 20)', () => {
  const files = ['.github/workflows/ci.yml', '.github/workflows/release.yml', 'src/main.go', 'Makefile'];
  it('a list of the checks CI runs is for every change and stays repository-wide', () => {
    const text = '## GitHub Actions Workflows\n\n1. **ci.yml** runs `make lint` and `make test` on every pull request.\n2. **release.yml** builds the binaries.\n';
    const r = inferScope(h('GitHub Actions Workflows'), text, files);
    expect(r.applyTo).toBeNull();
  });
  it('workflow YAML rules are scoped to the workflow files', () => {
    const text = '## GitHub Actions Workflows\n\n- Set `permissions:` per job and use `runs-on: ubuntu-latest`.\n\n```yaml\njobs:\n  test:\n    runs-on: ubuntu-latest\n```\n';
    expect(inferScope(h('GitHub Actions Workflows'), text, files).applyTo).toEqual(['.github/workflows/**']);
  });
  it('rules on reusable workflows, action versions or workflow dispatch are rules for writing workflow files', () => {
    const text = '## GitHub Actions Workflow Guidelines\n\n- Use reusable workflows for common tasks.\n- Use specific action versions (not @main).\n- Stable releases require manual workflow dispatch.\n';
    expect(inferScope(h('GitHub Actions Workflow Guidelines'), text, files).applyTo).toEqual(['.github/workflows/**']);
  });
  it('"Workflow Guidelines" is the CI topic only when its text writes workflow syntax', () => {
    const yaml = '## Workflow Guidelines\n\n- Use `actions/checkout@v4`.\n- Always define least-privilege `permissions:` at job level.\n';
    expect(inferScope(h('Workflow Guidelines'), yaml, files).applyTo).toEqual(['.github/workflows/**']);
    const team = '## Workflow Guidelines\n\n- Open a draft pull request early.\n- Rebase before merging.\n';
    expect(inferScope(h('Workflow Guidelines'), team, files).applyTo).toBeNull();
  });
});

describe('a "documentation" heading needs the body to name the kind of file (issue 20)', () => {
  const files = ['README.md', 'docs/guide.md', 'src/Api/OrdersController.cs', 'src/Api/Startup.cs'];
  it('generic words only ("documentation", "docs") leave it repository-wide', () => {
    const text = '### API Documentation\n\n- Every endpoint has documentation: summary, parameters and responses.\n- Keep the documentation in sync with the code; the docs are generated.\n';
    expect(inferScope(h('API Documentation'), text, files).applyTo).toBeNull();
  });
  it('a body that names markdown or README files scopes it to them', () => {
    const text = '### Documentation\n\n- Write documentation in Markdown; one sentence per line.\n- Update the README when a command changes.\n';
    expect(inferScope(h('Documentation'), text, files).applyTo).toEqual(['**/*.md']);
  });
});

describe('build scripts and a folder named like the tool (issue 20)', () => {
  const files = [
    'gradle/libs.versions.toml', 'gradle/wrapper/gradle-wrapper.properties', 'settings.gradle.kts', 'build.gradle.kts', 'gradle.properties',
    ...['app', 'core', 'data', 'ui', 'net'].map((m) => `${m}/build.gradle.kts`), 'app/src/main/kotlin/Main.kt',
    'CMakeLists.txt', 'src/CMakeLists.txt', 'tests/CMakeLists.txt', 'cmake/utils.cmake', 'src/main.cpp',
  ];
  it('Gradle rules go to the build scripts, not to the gradle/ folder the body names', () => {
    const text = '## Gradle Build Configuration Guidelines\n\n- Declare versions in `gradle/libs.versions.toml`.\n- Apply conventions in every `build.gradle.kts`.\n';
    const r = inferScope(h('Gradle Build Configuration Guidelines'), text, files);
    // `**/*.gradle` matches no file of this tree, so it is left out.
    expect(r.applyTo).toEqual(['**/*.gradle.kts', '**/gradle.properties', '**/libs.versions.toml']);
  });
  it('CMake rules go to CMakeLists.txt and .cmake files, not to every C++ file', () => {
    const r = inferScope(h('CMake instructions'), '## CMake instructions\n\n- Helpers live in `cmake/utils.cmake`; targets are declared in each `CMakeLists.txt`.\n', files);
    expect(r.applyTo).toEqual(['**/CMakeLists.txt', '**/*.cmake']);
  });
  it('a folder that holds a real share of the topic stays the scope (python/ bindings)', () => {
    const py = ['python/hudi/__init__.py', 'python/hudi/table.py', 'python/tests/test_table.py', 'crates/core/src/lib.rs', 'tools/gen.py'];
    const r = inferScope(h('Python'), '## Python\n\n- The bindings live in `python/`; run `make develop` in `python/`.\n', py);
    expect(r.applyTo).toEqual(['python/**']);
  });
});

describe('"<concept> code review" names what is reviewed (issue 20)', () => {
  const files = ['adapters/powershell/adapter.ps1', 'adapters/wmi/adapter.rs', 'adapters/wmi/lib.rs', 'dsc/src/main.rs', 'lib/core/src/lib.rs'];
  it('"Adapter Code Review" is for the adapters/ folder', () => {
    const r = inferScope(h('Adapter Code Review'), '## Adapter Code Review\n\n- Check that every adapter reports its errors.\n', files);
    expect(r.applyTo).toEqual(['adapters/**']);
  });
  it('plain review etiquette stays repository-wide', () => {
    expect(inferScope(h('Code Review'), '## Code Review\n\n- Be kind; explain why.\n', files).applyTo).toBeNull();
    expect(inferScope(h('Commit review'), '## Commit review\n\n- One topic per commit.\n', files).applyTo).toBeNull();
  });
});

describe('the release record a heading names (issue 20 §2: root files are path evidence)', () => {
  const files = ['CHANGELOG.md', 'TESTING.md', 'README.md', 'docs/guide.md', 'src/index.ts', 'src/index.test.ts'];
  it('"Changelog Format" is for CHANGELOG.md', () => {
    expect(inferScope(h('Changelog Format'), '## Changelog Format\n\n- One entry per user-visible change, newest first.\n', files).applyTo).toEqual(['CHANGELOG.md']);
  });
  it('"README.md Maintenance Guidelines" is for every README.md when two or more folders have one besides the root', () => {
    const body = '## README.md Maintenance Guidelines\n\n- Every README says what the folder is for.\n';
    const monorepo = [...files, 'packages/a/README.md', 'packages/b/README.md', 'packages/a/index.ts'];
    expect(inferScope(h('README.md Maintenance Guidelines'), body, monorepo).applyTo).toEqual(['**/README.md']);
    expect(inferScope(h('README.md Maintenance Guidelines'), body, [...files, 'packages/a/README.md']).applyTo).toEqual(['README.md']);
  });
  it('"Testing" names the topic, not TESTING.md', () => {
    expect(inferScope(h('Testing'), '## Testing\n\n- vitest; every `*.test.ts` next to its code.\n', files).applyTo).toEqual(['**/*.test.ts']);
  });
});

describe('a heading that says "<name> directory" names it (issue 20)', () => {
  const files = ['.claude/settings.json', '.claude/commands/review.md', 'specs/001/spec.md', 'specs/002/spec.md', 'src/main.go', 'README.md'];
  it('a hidden directory too', () => {
    expect(inferScope(h('Claude Directory Instructions'), '## Claude Directory Instructions\n\n- Commands here are for Claude Code only.\n', files).applyTo).toEqual(['.claude/**']);
  });
  it('and a plain one', () => {
    expect(inferScope(h('Specs Directory Instructions'), '## Specs Directory Instructions\n\n- One folder per feature, numbered.\n', files).applyTo).toEqual(['specs/**']);
  });
  it('a folder of pages about the word (`docs/design/`) is not what a heading naming it is about; a folder of code is', () => {
    const body = '## Design rules\n\n- Prefer composition over inheritance.\n- One reason to change per module.\n';
    expect(inferScope(h('Design rules'), body, ['docs/design/_index.md', 'docs/design/layers.md', 'src/main.go']).applyTo).toBeNull();
    expect(inferScope(h('Design rules'), body, ['apps/site-docs/design/_index.mdx', 'apps/site-docs/design/layers.mdx', 'src/main.go']).applyTo).toBeNull();
    expect(inferScope(h('Design rules'), body, ['docs/design/_index.md', 'src/design/tokens.go', 'src/main.go']).applyTo).toEqual(['src/design/**']);
  });
});

describe('more ways a heading names a folder or a build file (issue 20)', () => {
  it('"<concept> Review Instructions" names what is reviewed', () => {
    const files = ['examples/hello.py', 'examples/trace.py', 'src/cc/bpf.cc', 'tools/x.py'];
    expect(inferScope(h('BCC Examples Review Instructions'), '## Examples review\n\n- Every example has a usage line.\n', files).applyTo).toEqual(['examples/**']);
  });
  it('a dashed folder name is named by its last part (the project prefix aside)', () => {
    const files = ['crates/mq-lsp/src/main.rs', 'crates/mq-lsp/src/hover.rs', 'crates/mq-run/src/main.rs', 'crates/mq-lang/src/lib.rs'];
    expect(inferScope(h('Language Server Protocol (LSP) Coding Rules'), '## LSP rules\n\n- Handlers never block.\n', files).applyTo).toEqual(['crates/mq-lsp/**']);
  });
  it('Maven rules are for the POMs', () => {
    const files = ['pom.xml', 'core/pom.xml', 'core/src/main/java/A.java', 'web/pom.xml'];
    expect(inferScope(h('Maven'), '## Maven\n\n- Versions live in the parent `pom.xml` dependencyManagement.\n', files).applyTo).toEqual(['**/pom.xml']);
  });
});

describe('Jupyter is the notebooks topic, not Python files (issue 20)', () => {
  it('"Jupyter Notebook Development Instructions" is for the notebooks', () => {
    const files = ['notebooks/a.ipynb', 'notebooks/b.ipynb', 'src/pkg/core.py', 'src/pkg/io.py'];
    expect(inferScope(h('Jupyter Notebook Development Instructions'), '## Jupyter\n\n- Clear outputs before committing.\n', files).applyTo).toEqual(['**/*.ipynb']);
  });
});

describe('a topic whose files the tree lacks leaves room for other evidence (issue 20)', () => {
  it('"Infrastructure Layer Instructions" in a Java tree without Terraform is the infrastructure package', () => {
    const files = ['src/main/java/com/acme/app/infrastructure/Db.java', 'src/main/java/com/acme/app/infrastructure/Http.java', 'src/main/java/com/acme/app/domain/Order.java', 'src/test/java/com/acme/app/infrastructure/DbTest.java', 'pom.xml'];
    const text = '## Infrastructure Layer Instructions\n\n- Adapters implement domain ports.\n\n```java\nclass Db implements OrderPort {}\n```\n\n```java\nclass Http {}\n```\n';
    const r = inferScope(h('Infrastructure Layer Instructions'), text, files);
    expect(r.applyTo).toEqual(['**/infrastructure/**/*.java']);
  });
});

describe('languages and tools with files of their own beyond the common ones (issue 20 §2: extensions and tools tied to files)', () => {
  const files = [
    'App/MainPage.xaml', 'App/MainPage.xaml.cs', 'App/Styles.xaml', 'parts/bracket.scad', 'parts/rail.scad', 'flake.nix', 'flake.lock', 'nix/shell.nix',
    'spec/main.tsp', 'spec/models.tsp', 'src/Model.jl', 'src/Solve.jl', 'lib/Core.fs', 'lib/Api.fs', 'src/app.ts', 'src/util.ts', 'README.md', 'contracts/Token.sol', 'rtl/top.sv', 'rtl/alu.v',
  ];
  it.each([
    ['XAML Rules', '- Always set `x:DataType` on pages.\n', ['**/*.xaml']],
    ['OpenSCAD Guidelines', '- Parameters at the top of every part.\n', ['**/*.scad']],
    ['Nix / devshell review focus', '- Pin the toolchain in the flake.\n', ['**/*.nix', '**/flake.lock']],
    ['TypeSpec Schema Guidelines', '- One model per file.\n', ['**/*.tsp']],
    ['Solidity contracts', '- Checks, effects, interactions.\n', ['**/*.sol']],
    ['SystemVerilog style', '- One module per file.\n', ['**/*.v', '**/*.sv']],
    ['Julia conventions', '- Type-stable functions.\n', ['**/*.jl']],
    ['F# guidelines', '- Prefer pipelines.\n', ['**/*.fs']],
    ['Zod Instructions', '- Infer types from schemas.\n', ['**/*.ts']],
  ])('%s', (title, body, expected) => {
    const r = inferScope(h(title), `## ${title}\n\n${body}`, files);
    expect(r.applyTo).toEqual(expected);
    expect(r.evidence[0]).toBe(`heading "${title}"`);
  });

  const tools = [
    'src/main/resources/db/changelog/db.changelog-master.yaml', 'src/main/resources/db/changelog/changesets/001-users.yaml', 'src/main/resources/db/migration/V1__init.sql',
    'src/main/resources/db/migration/V2__users.sql', 'backend/alembic/env.py', 'backend/alembic/versions/001_init.py', 'backend/alembic.ini', 'renovate.json5',
    '.coderabbit.yaml', 'src/main/java/App.java', 'backend/app/main.py', 'README.md',
  ];
  it.each([
    ['Liquibase Migration Requirements', '- Every changeset has an author and a rollback.\n', ['**/db/changelog/**']],
    ['Flyway Migrations', '- Never edit an applied migration.\n', ['**/db/migration/**']],
    ['Alembic migrations', '- One revision per change.\n', ['**/alembic/**', '**/alembic.ini']],
    ['Renovate Guidelines', '- Group minor updates.\n', ['**/renovate.json5']],
    ['CodeRabbit review instructions', '- Keep automatic reviews disabled.\n', ['**/.coderabbit.yaml']],
  ])('a tool the heading names is for its files: %s', (title, body, expected) => {
    const r = inferScope(h(title), `## ${title}\n\n${body}`, tools);
    expect(r.applyTo).toEqual(expected);
    expect(r.evidence[0]).toBe(`heading "${title}"`);
  });

  it('a topic the heading names whose files the tree lacks takes a kin tool the body speaks of', () => {
    const tree = ['backend/alembic/env.py', 'backend/alembic/versions/001_init.py', 'backend/alembic.ini', 'backend/app/main.py', 'README.md'];
    const r = inferScope(h('Database & Migrations Guidelines'), '## Database & Migrations Guidelines\n\n- Every schema change is an Alembic revision.\n- Run `alembic upgrade head` before tests.\n', tree);
    expect(r.applyTo).toEqual(['**/alembic/**', '**/alembic.ini']);
    expect(r.evidence.join(' ')).toMatch(/alembic/);
    // Without such a tool it says the topic has no files.
    expect(inferScope(h('Database & Migrations Guidelines'), '## Database & Migrations Guidelines\n\n- Keep migrations small.\n', tree).applyTo).toBeNull();
  });

  it('a folder the section names that holds one file of a large tree does not replace the topic\'s files', () => {
    const tree = [...Array.from({ length: 60 }, (_, i) => `pkg/m${i}/m.go`), ...Array.from({ length: 40 }, (_, i) => `pkg/m${i}/m_test.go`), 'cmd/tool/testdata/golden.json', 'go.mod'];
    const text = '## Test review instructions\n\n- Tests use table-driven cases and assertions from testify.\n- Golden files live in `testdata/`.\n';
    expect(inferScope(h('Test review instructions'), text, tree).applyTo).toEqual(['**/*_test.go']);
    // In a small tree the folder it names is still the scope.
    expect(inferScope(h('Test review instructions'), text, ['pkg/a.go', 'pkg/a_test.go', 'cmd/tool/testdata/golden.json']).applyTo).toEqual(['cmd/tool/testdata/**']);
  });

  it('a heading about the build or the release is for the one build or release tool its body speaks of', () => {
    const tree = ['.goreleaser.yml', 'CMakeLists.txt', 'cmake/deps.cmake', 'src/main.cpp', 'cmd/tool/main.go', 'go.mod', 'README.md'];
    const release = inferScope(h('Release review instructions'), '## Release review instructions\n\n- Keep GoReleaser v2 behaviour and signing intact.\n', tree);
    expect(release.applyTo).toEqual(['**/.goreleaser.yml']);
    expect(release.evidence[0]).toBe('heading "Release review instructions" is about the build or release');
    expect(inferScope(h('Build System'), '## Build System\n\n- Keep options in the existing CMake modules.\n', tree).applyTo).toEqual(['**/CMakeLists.txt', '**/*.cmake']);
    // Running the build is how to work, wherever one works; two tools say no one kind of file.
    expect(inferScope(h('Build Commands'), '## Build Commands\n\n- `cmake -B build && cmake --build build`\n', tree).applyTo).toBeNull();
    expect(inferScope(h('Release'), '## Release\n\n- GoReleaser publishes; the CMake version must match.\n', tree).applyTo).toBeNull();
    // Release notes are text people read, not the release tool's configuration.
    expect(inferScope(h('Release notes'), '## Release notes\n\n- GoReleaser drafts them; edit the summary by hand.\n', tree).applyTo).toBeNull();
  });

  it('a heading that names such a language where the tree has none of its files gives no scope', () => {
    expect(inferScope(h('XAML Rules'), '## XAML Rules\n\n- Compiled bindings only.\n', ['src/app.ts', 'src/util.ts']).applyTo).toBeNull();
  });
});

describe('an acronym names the folder of its plural (issue 20 §2)', () => {
  it('"SDK Instructions" is for sdks/ when no folder is named sdk', () => {
    const tree = ['sdks/python/client.py', 'sdks/node/index.ts', 'apps/web/page.tsx', 'README.md'];
    expect(inferScope(h('SDK Instructions'), '## SDK Instructions\n\n- Keep the clients in step.\n', tree).applyTo).toEqual(['sdks/**']);
    expect(inferScope(h('SDK'), '## SDK\n\n- Keep the clients in step.\n', tree).applyTo).toEqual(['sdks/**']);
    expect(inferScope(h('SDK Instructions'), '## SDK Instructions\n\n- Keep the clients in step.\n', [...tree, 'tools/sdk/gen.py']).applyTo).toEqual(['tools/sdk/**']);
  });
});

describe('Node.js and `<name>.js` frameworks run the TypeScript of a TypeScript tree (issue 20 §2)', () => {
  const ts = ['backend/src/app.ts', 'backend/src/routes/users.ts', 'backend/src/db.ts', 'frontend/src/page.tsx', 'scripts/seed.mjs', 'README.md'];
  const body = '- Validate every request body.\n- Return JSON errors.\n';
  it('"Express.js rules" in a TypeScript tree is for the TypeScript', () => {
    const r = inferScope(h('Express.js rules'), `## Express.js rules\n\n${body}`, ts);
    expect(r.applyTo).toEqual(['**/*.ts', '**/*.tsx']);
    expect(r.evidence).toContain("the tree's code for it is TypeScript");
    expect(inferScope(h('Node.js services'), `## Node.js services\n\n${body}`, ts).applyTo).toEqual(['**/*.ts', '**/*.tsx']);
  });
  it('not when the heading names JavaScript itself, nor in a tree of JavaScript', () => {
    expect(inferScope(h('JavaScript rules'), `## JavaScript rules\n\n${body}`, ts).applyTo).toEqual(['**/*.mjs']);
    const js = ['server/app.js', 'server/routes/users.js', 'server/db.js', 'types/index.ts', 'README.md'];
    expect(inferScope(h('Express.js rules'), `## Express.js rules\n\n${body}`, js).applyTo).toEqual(['**/*.js']);
  });
});

describe('a name before a dash in a heading is the part of the code the section is about (issue 20 §2)', () => {
  const tree = ['packages/tagger/src/lib.rs', 'packages/tagger/src/id3.rs', 'packages/fetcher/src/lib.rs', 'packages/fetcher/src/spotify.rs', 'apps/cli/src/main.rs', 'ux/cmd/main.go', 'ux/go.mod', 'README.md'];
  it('"Tagger — metadata and audio files" is for packages/tagger/', () => {
    const r = inferScope(h('Tagger — metadata and audio files'), '# Tagger — metadata and audio files\n\n- Write tags with lofty.\n', tree);
    expect(r.applyTo).toEqual(['packages/tagger/**']);
    expect(r.evidence[0]).toBe('heading "Tagger — metadata and audio files" names directory packages/tagger/');
    expect(inferScope(h('Fetcher -- sources'), '# Fetcher -- sources\n\n- One client per source.\n', tree).applyTo).toEqual(['packages/fetcher/**']);
  });
  it('not in the file\'s title or a heading that names the assistant, where the name is the project\'s', () => {
    expect(inferScope({ ...h('UX - Codegen Tooling Suite'), opensFile: true }, '# UX - Codegen Tooling Suite\n\n- Generators for many languages.\n', tree).applyTo).toBeNull();
    expect(inferScope(h('UX - Copilot instructions'), '# UX - Copilot instructions\n\n- Generators for many languages.\n', tree).applyTo).toBeNull();
    expect(inferScope(h('UX - Codegen Tooling Suite'), '# UX - Codegen Tooling Suite\n\n- Generators for many languages.\n', tree).applyTo).toEqual(['ux/**']);
  });
  it('the file\'s title addressing the assistant names the project, even when its package folder has that name', () => {
    const pkg = ['src/mergemate/__init__.py', 'src/mergemate/bot.py', 'src/mergemate/config/defaults.yaml', 'tests/test_bot.py', 'README.md'];
    const text = (t: string) => `# ${t}\n\n${['- The bot code lives in `src/mergemate/`.', ...Array.from({ length: 12 }, (_, i) => `- Rule ${i}: prefer small pull requests and say why.`)].join('\n')}\n`;
    for (const t of ['MergeMate Copilot Instructions', 'Copilot Instructions for MergeMate']) {
      expect(inferScope({ ...h(t), opensFile: true }, text(t), pkg).applyTo).toBeNull();
    }
    // The same words in a heading inside the file, or a title without the assistant, name the folder.
    expect(inferScope(h('MergeMate Copilot Instructions'), text('MergeMate Copilot Instructions'), pkg).applyTo).toEqual(['src/mergemate/**']);
    expect(inferScope({ ...h('MergeMate package rules'), opensFile: true }, text('MergeMate package rules'), pkg).applyTo).toEqual(['src/mergemate/**']);
  });
  it('an agent named before the dash is a part of the code ("Runtime Agent — Module Guidelines")', () => {
    const agents = ['runtime-agent/main.py', 'runtime-agent/loop.py', 'design-agent/main.py', 'shared/util.py', 'README.md'];
    expect(inferScope(h('Runtime Agent — Module Guidelines'), '## Runtime Agent — Module Guidelines\n\n- Keep the loop pure.\n', agents).applyTo).toEqual(['runtime-agent/**']);
    expect(inferScope(h('Runtime Agent — Copilot Instructions'), '## Runtime Agent — Copilot Instructions\n\n- Keep the loop pure.\n', agents).applyTo).toBeNull();
  });
});

describe("another agent's instruction file the body names is a pointer, not a scope (issue 20 §2)", () => {
  const tree = ['AGENTS.md', 'CLAUDE.md', 'src/pgstac/sql/001_core.sql', 'src/pgstac/sql/002_search.sql', 'scripts/stageversion', 'README.md'];
  const body = [
    'See `CLAUDE.md` for comprehensive project instructions and workflows.',
    'See `AGENTS.md` for specialized agent definitions.',
    'When workflows change, update `CLAUDE.md` and `AGENTS.md` in the same change.',
    'See CLAUDE.md "Critical Rules" for the SQL conventions.',
  ].join('\n');
  it('"See `CLAUDE.md`" and "update `AGENTS.md`" leave the section repository-wide', () => {
    expect(inferScope(h('Working in this repository'), `## Working in this repository\n\n${body}\n`, tree).applyTo).toBeNull();
  });
  it('other files the body names the same way still count', () => {
    const other = body.replace(/CLAUDE\.md/g, 'src/pgstac/sql/').replace(/AGENTS\.md/g, 'src/pgstac/sql/');
    expect(inferScope(h('Working in this repository'), `## Working in this repository\n\n${other}\n`, tree).applyTo).toEqual(['src/pgstac/sql/**']);
  });
});
