/**
 * The failure patterns of scope inference seen on real monoliths, one test each: path evidence
 * over generic heading words, large sections split at subsections with different scopes, the
 * section's language for test globs, the folders a body is about
 * over passing mentions, headingless bullet text grouped by topic.
 */
import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import { inferScope, topicName } from '../../server/src/core/scope.js';
import { FileIndex } from '../../server/src/core/file-index.js';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan, verifyLossless } from '../../server/src/core/plan.js';
import { parseMarkdown } from '../../server/src/core/markdown.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { REPO_WIDE_PATH, readFrontMatter } from '../../server/src/core/copilot-format.js';
import type { Snapshot } from '../../server/src/core/types.js';
import { planFacts, planText } from '../../server/src/app/facts.js';

const heading = (title: string, body: string, files: string[]) => inferScope({ title, kind: 'heading' }, `## ${title}\n\n${body}`, new FileIndex(files));

function snapshot(text: string, files: string[]): Snapshot {
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  return { sources: [{ path: REPO_WIDE_PATH, kind: 'copilot-repo', bytes, size: bytes.length, sha256: sha256Hex(bytes) }], refused: [], files: [REPO_WIDE_PATH, ...files].sort(), filesTruncated: false };
}

/** A chapter with a "Style" part and one more part, each twenty rules long: the plan's scope for each section title (losslessly split). */
function chapterScopes(chapter: string, intro: string, part: string, files: string[]): Record<string, string | null> {
  const rules = (topic: string) => Array.from({ length: 20 }, (_, i) => `- ${topic} rule ${i}: keep it short and name things after what they do.`).join('\n');
  const text = ['# Guide', '', 'Keep commits small.', '', `## ${chapter}`, '', intro, '', '### Style', '', rules('Style'), '', `### ${part}`, '', rules('Part'), ''].join('\n');
  const snap = snapshot(text, files);
  const p = buildPlan({ snapshot: snap, analysis: analyze(snap) });
  expect(p.lossless.ok).toBe(true);
  return Object.fromEntries(p.sections.map((s) => [s.title, s.applyTo]));
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

  it('2. a large section whose subsections have different scopes is split at its subsections, headings kept valid', () => {
    const rules = (crate: string, n: number) => Array.from({ length: n }, (_, i) => `- Rule ${i} for ${crate}: keep functions small, document invariants, and prefer explicit error types over panics.`).join('\n');
    const rust = Array.from({ length: 25 }, (_, i) => `- Rust rule ${i}: run \`cargo clippy\`, derive \`Debug\`, return \`Result\` and never \`unwrap()\` in library crates.`).join('\n');
    const text = [
      '# Workspace guide', '', 'Keep commits small.', '',
      '## 5. Crates', '', 'Each crate has its own rules.', '',
      '### storage', '', 'Everything under `crates/storage/` talks to the disk through the `Pager` type.', '', rules('storage', 140), '',
      '### sync', '', 'Everything under `crates/sync/` is async and must not block.', '', rules('sync', 140), '',
      '## Rust style', '', 'Format with rustfmt; use `thiserror` for error enums in `.rs` files.', '', rust, '',
      '### Writing docs', '', 'Docs in `docs/` are Markdown; one sentence per line; link to the crate docs rather than copying them.', '',
      ...Array.from({ length: 6 }, (_, i) => `- Markdown rule ${i}: headings in sentence case, fenced code with a language, relative links between pages.`), '',
    ].join('\n');
    const crates = text.slice(text.indexOf('## 5. Crates'), text.indexOf('## Rust style'));
    expect(crates.length).toBeGreaterThan(30_000);
    const files = ['Cargo.toml', 'crates/storage/src/lib.rs', 'crates/storage/src/pager.rs', 'crates/sync/src/lib.rs', 'crates/sync/src/queue.rs', 'docs/guide.md', 'docs/storage.md'];
    const snap = snapshot(text, files);
    const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
    const byTitle = (t: string) => plan.sections.find((s) => s.title === t)!;
    expect(byTitle('storage').applyTo).toBe('crates/storage/**');
    expect(byTitle('sync').applyTo).toBe('crates/sync/**');
    expect(byTitle('5. Crates').destination).toBe(REPO_WIDE_PATH);
    expect(byTitle('Rust style').applyTo).toBe('**/*.rs');
    expect(byTitle('Writing docs').applyTo).not.toBe('**/*.rs');
    expect(byTitle('storage').evidence.join('\n')).toContain('split from "5. Crates"');
    // propose's table says the chapter's note on its first row only; its parts' rows show their own evidence.
    const rows = planText(planFacts(plan, 'plan.json')).split('\n').filter((l) => l.startsWith('| '));
    const row = (title: string) => rows.find((l) => l.startsWith(`| ${title} |`))!;
    expect(rows.filter((l) => l.includes('split from "5. Crates"'))).toEqual([row('5. Crates')]);
    const own = byTitle('storage').evidence.filter((e) => !e.startsWith('split from')).slice(0, 3).join('; ');
    expect(row('storage')).toContain(`| "crates/storage/**" | ${own} |`);

    // Lossless as before: every source byte in exactly one output, in order.
    const outputs = new Map(plan.operations.map((o) => [o.path, o.content === null ? null : new Uint8Array(Buffer.from(o.content, 'utf8'))]));
    expect(verifyLossless(plan, new Map([[REPO_WIDE_PATH, snap.sources[0]!.bytes]]), outputs)).toEqual({ ok: true, errors: [] });

    // Every output's headings are valid: none deeper than one level below the one before it.
    const headingsOf = (content: string) => {
      const fm = readFrontMatter(content);
      return parseMarkdown(new Uint8Array(Buffer.from(content.slice(fm.present ? fm.length : 0), 'utf8'))).headings;
    };
    for (const op of plan.operations) {
      if (op.content === null) continue;
      let prev = op.path === REPO_WIDE_PATH ? 0 : 1;
      for (const h of headingsOf(op.content)) {
        expect(h.level, `${op.path}: ${h.text}`).toBeLessThanOrEqual(prev + 1);
        prev = h.level;
      }
    }
    // A moved subsection is introduced by a generated heading naming its parent.
    const storage = plan.operations.find((o) => o.path === byTitle('storage').destination)!;
    expect(headingsOf(storage.content!).map((h) => `${h.level} ${h.text}`)).toEqual(['2 5. Crates', '3 storage']);
    const out = plan.lossless.outputs.find((o) => o.path === storage.path)!;
    expect(out.generated.map((g) => g.what)).toEqual(['front-matter', 'generated-heading']);
    const rs = plan.operations.find((o) => o.path === byTitle('Rust style').destination)!;
    expect(rs.content).not.toContain('### Writing docs');
    const docs = plan.operations.find((o) => o.path === byTitle('Writing docs').destination)!;
    expect(headingsOf(docs.content!).slice(-2).map((h) => `${h.level} ${h.text}`)).toEqual(['2 Rust style', '3 Writing docs']);
  });

  it('2. stays whole: small sections, `###` lines inside a fence, and a structure map', () => {
    const files = ['crates/storage/src/lib.rs', 'crates/sync/src/lib.rs'];
    const part = (name: string, n: number) => `### ${name}\n\nEverything under \`crates/${name}/\` follows these rules.\n\n${'- Keep functions small and document invariants.\n'.repeat(n)}\n`;
    const small = `## Crates\n\nIntro.\n\n${part('storage', 5)}${part('sync', 5)}`;
    const fenced = `## Crates\n\n\`\`\`md\n${part('storage', 30)}${part('sync', 30)}\`\`\`\n`;
    const map = `## Project structure\n\n${part('storage', 30)}${part('sync', 30)}`;
    for (const text of [small, fenced, map]) {
      const snap = snapshot(text, files);
      const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
      expect(plan.sections.map((s) => s.title)).not.toContain('storage');
      expect(plan.sections.every((s) => !s.evidence.some((e) => e.startsWith('split from')))).toBe(true);
      expect(plan.lossless.ok).toBe(true);
    }
    // The same parts, large and outside a fence, under a heading about them: split.
    const big = snapshot(`## Crates\n\nIntro.\n\n${part('storage', 30)}${part('sync', 30)}`, files);
    const control = buildPlan({ snapshot: big, analysis: analyze(big) });
    expect(control.sections.map((s) => [s.title, s.applyTo])).toEqual([['Crates', 'crates/**'], ['storage', 'crates/storage/**'], ['sync', 'crates/sync/**']]);
    expect(small.length).toBeLessThan(2000);
    expect(fenced.length).toBeGreaterThan(2000);
    expect(map.length).toBeGreaterThan(2000);
  });

  it('2b. a part that names a folder only in its body, or only by a word of its heading, stays with its chapter', () => {
    const files = ['app/Gui/Converters/BoolConverter.cs', 'app/Gui/Converters/ColorConverter.cs', 'app/Gui/Controls/Grid.cs', 'app/Gui/MainWindow.cs', 'app/Core/Engine.cs'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: keep the view model thin and never block the UI thread.`).join('\n');
    const chapter = (dataBinding: string) =>
      ['# Guide', '', 'Keep commits small.', '', '## Desktop application guidelines', '', 'Rules for the desktop application.', '', '### Threading', '', rules('Threading', 12), '',
        '### Data binding', '', dataBinding, rules('Binding', 12), '', '### Naming', '', rules('Naming', 12), ''].join('\n');
    // "Use the converters in `Converters/`": a pointer inside the chapter's subject, not a topic of its own.
    const passing = snapshot(chapter('Use value converters from the `Converters/` directory.\n'), files);
    const plan = buildPlan({ snapshot: passing, analysis: analyze(passing) });
    expect(plan.sections.map((s) => s.title)).toEqual(['Preamble', 'Desktop application guidelines']);
    // A subsection heading's word that happens to be a folder's name ("Design principles", `Doc/Design/`) is a concept.
    const word = snapshot(chapter('Bindings are one-way unless the user edits the value.\n').replace('### Naming', '### Design principles'), [...files, 'Doc/Design/Layers.md', 'Doc/Design/Threads.md']);
    expect(buildPlan({ snapshot: word, analysis: analyze(word) }).sections.map((s) => s.title)).toEqual(['Preamble', 'Desktop application guidelines']);
    // The part whose heading names a kind of file still leaves (its own heading is its evidence),
    // for that kind of file in the folder its other word names: the C# files of `Converters/`.
    const own = snapshot(chapter('Value converters are C# classes: every `.cs` converter is sealed.\n').replace('### Data binding', '### C# converters'), files);
    const split = buildPlan({ snapshot: own, analysis: analyze(own) });
    expect(split.sections.find((s) => s.title === 'C# converters')?.applyTo).toBe('app/Gui/Converters/**/*.cs');
  });

  it('2d. a part about one file its heading names stays with its chapter; a part whose heading names a folder leaves', () => {
    const files = ['package.json', 'src/app.ts', 'src/routes.ts', 'src/api/orders.ts', 'src/api/users.ts', 'deploy/app.yaml', 'deploy/db.yaml', 'README.md'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: keep it short and name things after what they do.`).join('\n');
    const text = ['# Guide', '', 'Keep commits small.', '', '## TypeScript coding rules', '', 'How we write TypeScript.', '',
      '### Style', '', rules('Style', 14), '', '### `package.json` rules', '', rules('Dependency', 14), '', '### `deploy/` manifests', '', rules('Manifest', 14), ''].join('\n');
    const snap = snapshot(text, files);
    const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
    expect(plan.lossless.ok).toBe(true);
    const scopes = Object.fromEntries(plan.sections.map((s) => [s.title, s.applyTo]));
    // The package.json part goes with the TypeScript rules, which are split only for the folder part.
    expect(scopes['`package.json` rules']).toBe(scopes['TypeScript coding rules']);
    expect(scopes['TypeScript coding rules']).toBe('**/*.ts');
    expect(scopes['`deploy/` manifests']).toBe('deploy/**');
    expect(plan.operations.map((o) => o.path).filter((p) => p.includes('package'))).toEqual([]);
  });

  it('2e. a part about some of its chapter\'s kinds of file ("React (`.tsx` files)" under TypeScript rules) stays with it; a part about another kind leaves', () => {
    const files = ['src/app.ts', 'src/routes.ts', 'src/App.tsx', 'src/Home.tsx', 'src/style.css', 'README.md'];
    const plan = (part: string) => chapterScopes('TypeScript rules', 'How we write TypeScript and TSX.', part, files);
    const tsx = plan('React components (`.tsx` files)');
    expect(tsx['TypeScript rules']).toBe('**/*.ts,**/*.tsx');
    expect('React components (`.tsx` files)' in tsx).toBe(false);
    // A part about files the chapter is not for is a topic of its own.
    expect(plan('CSS (`.css` files)')['CSS (`.css` files)']).toBe('**/*.css');
  });

  it('2e2. a part about a folder inside its chapter\'s ("Integration tests (`test/integration/`)" under rules for `test/`) stays with it; a part about another folder leaves', () => {
    const files = ['src/app.ts', 'src/db.ts', 'test/unit/app.test.ts', 'test/integration/db.test.ts', 'test/integration/api.test.ts', 'scripts/seed.ts', 'README.md'];
    const plan = (part: string) => chapterScopes('Test suite (`test/`)', 'How we write the tests.', part, files);
    const inner = plan('Integration tests (`test/integration/`)');
    expect(inner['Test suite (`test/`)']).toBe('test/**');
    expect('Integration tests (`test/integration/`)' in inner).toBe(false);
    expect(plan('Seed scripts (`scripts/`)')['Seed scripts (`scripts/`)']).toBe('scripts/**');
  });

  it('2h. a heading of nothing but "documentation" and generic words is about documentation files; with another word the body must say so', () => {
    const files = ['README.md', 'guide/intro.md', 'guide/setup.md', 'src/parser.ts', 'src/lexer.ts'];
    const body = '- Keep sentences short.\n- Link related pages instead of repeating them.\n';
    for (const t of ['Documentation instructions', 'Docs guidelines for Copilot', 'Documentation']) expect(heading(t, body, files).applyTo).toEqual(['**/*.md']);
    expect(heading('Parser documentation', body, files).applyTo).toBeNull();
    // The word that names a folder of the tree is that folder.
    expect(heading('Docs', body, [...files, 'docs/api.md', 'docs/cli.md']).applyTo).toEqual(['docs/**']);
  });

  it('2i. "Frontend" or "UI" without a folder of that name is the folder nine tenths of the tree\'s UI files are in', () => {
    const files = ['server/main.py', 'server/db.py', 'src/cook-web/src/App.tsx', 'src/cook-web/src/Home.tsx', 'src/cook-web/src/components/Button.tsx', 'src/cook-web/package.json', 'README.md'];
    const body = '- Keep components small.\n- Use the design tokens for colours.\n';
    for (const t of ['Frontend Guidelines', 'Copilot Instructions: Frontend', 'UI conventions']) {
      const r = heading(t, body, files);
      expect(r.applyTo).toEqual(['src/cook-web/src/**']);
      expect(r.evidence.join('\n')).toContain('3/3 of the tree\'s UI files');
    }
    // UI files spread over several places name no one folder; a folder named frontend is that folder.
    expect(heading('Frontend Guidelines', body, [...files, 'admin/Panel.tsx']).applyTo).toBeNull();
    expect(heading('Frontend Guidelines', body, [...files, 'frontend/index.ts', 'frontend/app.ts']).applyTo).toEqual(['frontend/**']);
  });

  it('2j. a heading naming Tailwind is for the stylesheets and the markup its classes are written in', () => {
    const files = ['app/assets/stylesheets/application.css', 'app/views/users/index.html.erb', 'app/views/layouts/app.html.erb', 'app/javascript/controllers/menu.js', 'app/models/user.rb'];
    const body = '- Prefer utility classes over custom CSS.\n- Group responsive variants together.\n';
    expect(heading('Tailwind CSS v4 Guidelines', body, files).applyTo).toEqual(['**/*.css', '**/*.erb']);
    // Plain CSS rules stay with the stylesheets.
    expect(heading('CSS conventions', body, files).applyTo).toEqual(['**/*.css']);
  });

  it('2c. the testing or documentation part of a chapter with a scope stays with it; in a chapter without one it leaves', () => {
    const files = ['src/Orders/Order.cs', 'src/Orders/OrderService.cs', 'tests/Orders.Tests/OrderTests.cs', 'tests/Orders.Tests/ServiceTests.cs', 'README.md'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: keep methods short and name them after what they do.`).join('\n');
    const text = (chapter: string) =>
      ['# Guide', '', 'Keep commits small.', '', `## ${chapter}`, '', 'How we write the service.', '', '### Style', '', rules('Style', 14), '',
        '### Testing requirements', '', 'Every public method has a unit test.', rules('Check', 14), '', '### Errors', '', rules('Error', 14), ''].join('\n');
    const plan = (chapter: string) => {
      const snap = snapshot(text(chapter), files);
      return buildPlan({ snapshot: snap, analysis: analyze(snap) });
    };
    // ".NET development" > "Testing requirements" is about testing the .NET code: one piece, one file.
    const scoped = plan('C# development');
    expect(scoped.sections.map((s) => [s.title, s.applyTo])).toEqual([['Preamble', null], ['C# development', '**/*.cs']]);
    // Under a chapter with no scope of its own, the testing part is the only scoped part: it leaves.
    const general = plan('Working on the service');
    expect(general.sections.find((s) => s.title === 'Testing requirements')?.applyTo).toBe('tests/**');
    // A chapter whose opening names its folder has a scope even when the whole chapter, a map of
    // many paths, has none: its testing part stays with it.
    const kumaFiles = ['pkg/xds/generator/gen.go', 'pkg/plugins/xds/hooks.go', 'pkg/xds/generator/testdata/a.golden.yaml', 'pkg/xds/generator/testdata/b.golden.yaml', 'api/v1/types.go', 'app/cp/main.go', 'tools/gen/main.go', 'test/e2e/xds_test.go', 'mk/build.mk'];
    const xds = ['# Guide', '', 'Keep commits small.', '', '## XDS Development Guidelines', '', 'Rules for the xds generators.', '',
      '### Layout', '', 'Types come from `api/v1/`, the control plane starts in `app/cp/`, generators are built by `tools/gen/` and `mk/build.mk`, end-to-end checks sit in `test/e2e/`.', rules('Layout', 14), '',
      '### Testing', '', 'Golden files live in `pkg/xds/generator/testdata/`; regenerate them with `make golden`. Every generator has a test.', rules('Test', 14), '',
      '### Errors', '', rules('Error', 14), ''].join('\n');
    const xsnap = snapshot(xds, kumaFiles);
    const xplan = buildPlan({ snapshot: xsnap, analysis: analyze(xsnap) });
    expect(xplan.lossless.ok).toBe(true);
    const testing = xplan.sections.find((s) => s.title === 'Testing');
    expect(testing?.applyTo ?? null).not.toBe('pkg/xds/generator/testdata/**');
  });

  it('2d. code examples in a chapter about one folder stay with it; under a chapter without a folder they take the part to their language', () => {
    const files = ['packages/core/src/runtime/vm.ts', 'packages/core/src/runtime/ops.ts', 'packages/core/src/brain/index.ts', 'apps/sim/src/main.ts', 'apps/sim/src/world.ts'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: keep the interpreter loop free of allocations and document every invariant.`).join('\n');
    const fence = '```typescript\nexport interface Frame { pc: number; locals: Value[] }\n```\n\n```typescript\nconst op = code[frame.pc++];\n```';
    const text = (chapter: string, intro: string) =>
      ['# Guide', '', 'Keep commits small.', '', `## ${chapter}`, '', intro, '', '### Scheduling', '', rules('Scheduling', 12), '',
        '### Key data structures', '', fence, '', rules('Data', 10), '', '### Errors', '', rules('Error', 12), ''].join('\n');
    const plan = (chapter: string, intro: string) => {
      const snap = snapshot(text(chapter, intro), files);
      const p = buildPlan({ snapshot: snap, analysis: analyze(snap) });
      expect(p.lossless.ok).toBe(true);
      return p;
    };
    // "VM Runtime" is about `packages/core/src/runtime/`: its TypeScript examples are that folder's code.
    const folder = plan('VM Runtime', 'The VM lives in `packages/core/src/runtime/`; see `packages/core/src/runtime/vm.ts`.');
    const part = folder.sections.find((s) => s.title === 'Key data structures' || s.title === 'VM Runtime')!;
    expect(part.applyTo).toBe('packages/core/src/runtime/**');
    expect(folder.sections.some((s) => s.applyTo === '**/*.ts')).toBe(false);
    // Under a chapter about no folder, the examples' language is a scope.
    const general = plan('Working on the engine', 'How we write the engine.');
    expect(general.sections.some((s) => s.applyTo === '**/*.ts')).toBe(true);
  });

  it('2e. a part naming a folder name several places have (`core/`) in a chapter about one of them (`Source/core/`) stays with it', () => {
    const files = ['Source/core/Singleton.h', 'Source/core/Sync.h', 'Source/core/IPC.h', 'Tests/core/test_sync.cpp', 'Tests/core/test_ipc.cpp', 'Source/plugins/Plugin.h'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: never take a lock while calling out, and document which thread owns each member.`).join('\n');
    const text = ['# Guide', '', 'Keep commits small.', '', '## Thunder `core/` Library', '', 'The library lives in `Source/core/`; everything in `Source/core/` is portable.', '',
      '### Threading', '', rules('Threading', 12), '', '### Singleton pattern in `core/`', '', rules('Singleton', 12), '', '### Errors', '', rules('Error', 12), ''].join('\n');
    const snap = snapshot(text, files);
    const plan = buildPlan({ snapshot: snap, analysis: analyze(snap) });
    expect(plan.lossless.ok).toBe(true);
    expect(plan.sections.some((s) => s.applyTo === '**/core/**')).toBe(false);
    expect(plan.sections.find((s) => s.title.startsWith('Thunder'))?.applyTo).toBe('Source/core/**');
  });

  it('2f. a chapter about how to work gives up a part whose own heading names its folder; a project map stays whole', () => {
    const files = ['schema/base.schema.json', 'schema/objects/point.schema.json', 'schema/objects/mesh.schema.json', 'tools/gen.py', 'tools/check.py', 'README.md'];
    const rules = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} rule ${i}: keep every definition small and document why it exists.`).join('\n');
    const text = (chapter: string) =>
      ['# Guide', '', 'Keep commits small.', '', `## ${chapter}`, '', 'How the pieces fit.', '', '### Schema hierarchy (`schema/`)', '', 'Every schema in `schema/` extends `schema/base.schema.json`.', rules('Schema', 12), '',
        '### Python helpers', '', '```python\nimport json\n```\n\n```python\nprint(json.dumps({}))\n```', rules('Helper', 12), '', '### Releases', '', rules('Release', 12), ''].join('\n');
    const plan = (chapter: string) => {
      const snap = snapshot(text(chapter), files);
      const p = buildPlan({ snapshot: snap, analysis: analyze(snap) });
      expect(p.lossless.ok).toBe(true);
      return p;
    };
    const arch = plan('Architecture');
    expect(arch.sections.find((s) => s.title === 'Schema hierarchy (`schema/`)')?.applyTo).toBe('schema/**');
    // Its code examples alone do not take a part out of a general chapter.
    expect(arch.sections.some((s) => s.applyTo === '**/*.py')).toBe(false);
    // "Project structure" is a map: it stays one piece, kept everywhere.
    const map = plan('Project structure');
    expect(map.sections.map((s) => [s.title, s.applyTo])).toEqual([['Preamble', null], ['Project structure', null]]);
  });

  it('3. test globs follow the section language (Rust tests are .rs files under test folders)', () => {
    const files = ['crates/core/src/lib.rs', 'crates/core/tests/parse.rs', 'tests/integration.rs', 'web/app.test.ts', 'tests/Api.Tests/ProgramTests.cs'];
    const r = heading('Testing bar', 'Every change needs a `#[test]`. Run `cargo test --workspace` before pushing; use `assert_eq!`.\n', files);
    expect(r.applyTo).toEqual(['**/tests/**/*.rs']);
    expect(r.evidence.join('\n')).toContain("the section's language is rust");
  });

  it('3b. nearly all tests in one test folder (`tests/`, .NET\'s `Tst/`): that folder', () => {
    const files = ['Src/App.Core/Engine.cs', 'Tst/App.Core.Tests/EngineTests.cs', 'Tst/App.Core.Tests/ParserTests.cs', 'Tst/App.Core.Tests/Data/sample.log', 'Tst/App.Gui.Tests/ViewTests.cs'];
    const r = heading('Test instructions', '- Name tests `Method_State_Result`.\n- Use xunit `[Fact]`; one assert per test.\n- Keep tests fast.\n', files);
    expect(r.applyTo).toEqual(['Tst/**']);
    expect(r.evidence.join('\n')).toMatch(/under Tst\//);
    // With no language named, tests of a language without a naming rule (C++ in `tests/`) count too:
    // the Python binding's few `test_*.py` files are not where the tests are.
    const cpp = ['include/index.h', 'src/index.cpp', 'tests/CMakeLists.txt', 'tests/integration/search.cpp', 'tests/integration/build.cpp', 'tests/unit/vamana.cpp', 'tests/unit/flat.cpp', 'tests/unit/ivf.cpp', 'tests/unit/lvq.cpp', 'tests/unit/io.cpp', 'bindings/python/tests/test_flat.py', 'bindings/python/tests/test_vamana.py'];
    expect(heading('Testing instructions', '- Add regression tests for bug fixes.\n- Keep tests deterministic.\n', cpp).applyTo).toEqual(['tests/**']);
  });

  it('4. the folders a section is about beat a passing mention; bare file names count when repeated, for their folder', () => {
    const files = ['plugin_api.py', 'plugin_manager/__init__.py', 'plugin_manager/registry.py', 'static/html/index.html', 'app.py'];
    const body = 'Plugins implement `plugin_api.py`; `plugin_manager/` installs them. Templates follow `static/html/`.\n\n- New hooks go in `plugin_api.py`.\n- `plugin_manager/` never imports a plugin eagerly.\n';
    const r = heading('Extending the app', body, files);
    expect([...(r.applyTo ?? [])].sort()).toEqual(['plugin_api.py', 'plugin_manager/**']);
    expect(r.evidence.join('\n')).toContain('×2');
    // A file named below the root stands for its folder: the section speaks of the templates, not of one of them.
    const tree = [...files, 'web/templates/base.html', 'web/templates/index.html', 'web/templates/about.html', 'web/static/site.css'];
    const templates = heading('Page conventions', 'Every page extends `base.html`; `index.html` lists the reports.\n\n- `base.html` holds the only `<head>`.\n- `index.html` loads no script.\n', tree);
    expect(templates.applyTo).toEqual(['web/templates/**']);
    expect(templates.evidence.join('\n')).toContain('file web/templates/base.html exists, in web/templates/');
  });

  it('4p. a folder named once, on under a tenth of a section\'s lines, is in passing even under a specific heading; a glob written out is not', () => {
    const files = ['demo/main.ts', 'demo/index.html', 'src/client.ts', 'src/api.ts'];
    const rules = ['- Clear the cache when builds look stale.', '- Restart the dev server after changing env files.', '- Check the browser console first.', '- Pin the Node version.', '- Run the linter before pushing.', '- Delete lock files only as a last resort.', '- Ask in the team channel.', '- Keep notes of what you tried.', '- Reproduce in a clean clone.', '- Update the browser.', '- Clear site data.'];
    const passing = heading('Troubleshooting', ['- If the page is blank, open `demo/` and reload.', ...rules].join('\n'), files);
    expect(passing.applyTo).toBeNull();
    // Named twice, or on a tenth of its lines, the folder is what the section is about.
    const twice = heading('Troubleshooting', ['- If the page is blank, open `demo/` and reload.', '- `demo/` loads the built bundle.', ...rules].join('\n'), files);
    expect(twice.applyTo).toEqual(['demo/**']);
    const short = heading('Troubleshooting', ['- If the page is blank, open `demo/` and reload.', ...rules.slice(0, 3)].join('\n'), files);
    expect(short.applyTo).toEqual(['demo/**']);
    // A glob written out says which files the section is for, however long its examples.
    const format = heading('Demo pages', ['Format of `demo/*.html`:', '', '```html', ...rules.map((r) => `<p>${r}</p>`), '```'].join('\n'), files);
    expect(format.applyTo).toEqual(['demo/*.html']);
  });

  it('4q. a path written from the root (`/api`) names that folder of the root, and only that one; a slash command names none', () => {
    const files = ['api/src/routes.ts', 'api/src/db.ts', 'extension/src/App.tsx', 'extension/src/api/client.ts', 'docs/guide.md'];
    const lines = ['- Each route must have proper error handling.', '- Use consistent response formats.', '- Never expose sensitive data.'];
    const api = heading('6. API architecture (`/api`)', lines.join('\n'), files);
    expect(api.applyTo).toEqual(['api/**']);
    expect(api.evidence.join('\n')).toContain('"/api"');
    // A root path is looked up at the root: `/client` is no folder there, whatever `extension/src/api/client` holds.
    expect(heading('Client rules (`/client`)', lines.join('\n'), files).applyTo).toBeNull();
    // A slash command (`/review`, `/fix`) names no folder of the root.
    expect(new FileIndex(['review/a.ts', 'x/fix/b.ts']).resolveDir('/fix')).toBeNull();
    expect(new FileIndex(['review/a.ts', 'x/fix/b.ts']).resolveDir('/review')).toBe('review/**');
  });

  it('4s. a file name a heading gives that several folders have (`Program.cs` of each host) is every file of that name; one such file is not a scope', () => {
    const lines = ['- Register services before building the host.', '- Read settings from configuration, never from constants.', '- Keep startup free of network calls.'];
    const hosts = ['samples/Api/Program.cs', 'samples/Worker/Program.cs', 'src/Core/Engine.cs', 'src/Core/Host.cs'];
    const r = heading('Host Setup Conventions (Program.cs)', lines.join('\n'), hosts);
    expect(r.applyTo).toEqual(['**/Program.cs']);
    expect(r.evidence.join('\n')).toContain('names **/Program.cs');
    // One `Program.cs` below the root is the file the heading happens to name.
    expect(heading('Host Setup Conventions (Program.cs)', lines.join('\n'), hosts.slice(1)).applyTo).not.toEqual(['**/Program.cs']);
  });

  it('4t. in a tree of some size a folder or a language with one file is no scope; in a small project, or with two files, it is', () => {
    const engine = Array.from({ length: 120 }, (_, i) => `Engine/Codec${i}.cpp`);
    const lines = ['- Include the SDK header before any Windows header.', '- Never redefine WIN32_LEAN_AND_MEAN.', '- Keep the plugin ABI stable.'];
    const r = heading('SDK Directory Rules', lines.join('\n'), [...engine, 'SDK/plugin_api.h']);
    expect(r.applyTo).toBeNull();
    expect(r.evidence.join('\n')).toContain('matches one file of the tree');
    // So is a language the tree has one file of: the one `.cpp` example of a CodeQL repository.
    const ql = Array.from({ length: 120 }, (_, i) => `languages/cpp/src/Query${i}.ql`);
    expect(heading('C++ query rules', lines.join('\n'), [...ql, 'languages/cpp/test/Example1.cpp']).applyTo).toBeNull();
    expect(heading('C++ query rules', lines.join('\n'), [...ql.slice(0, 20), 'languages/cpp/test/Example1.cpp']).applyTo).toEqual(['**/*.cpp']);
    expect(heading('SDK Directory Rules', lines.join('\n'), [...engine, 'SDK/plugin_api.h', 'SDK/host_api.h']).applyTo).toEqual(['SDK/**']);
    expect(heading('SDK Directory Rules', lines.join('\n'), [...engine.slice(0, 20), 'SDK/plugin_api.h']).applyTo).toEqual(['SDK/**']);
  });

  it('4r. "<concept> requirements" names what the requirements are for, as "<concept> rules" does', () => {
    const files = ['src/main/java/app/controller/UserController.java', 'src/main/java/app/service/UserService.java', 'src/main/java/app/Main.java'];
    const lines = ['- Return DTOs, never entities.', '- Validate every request body.', '- Map errors to problem details.'];
    const r = heading('REST Controller Requirements', lines.join('\n'), files);
    expect(r.applyTo).toEqual(['src/main/java/app/controller/**']);
    expect(r.evidence.join('\n')).toContain('as a concept');
    // A heading that is a sentence names no concept, though one of its words is a folder's name.
    expect(heading('Always return DTOs from every controller method, never the entities, and follow these requirements', lines.join('\n'), files).applyTo).toBeNull();
    // "Controller-specific", "Controller-only": the suffix qualifies the concept the word names.
    expect(heading('Controller-specific Requirements', lines.join('\n'), files).applyTo).toEqual(['src/main/java/app/controller/**']);
    expect(heading('Controller-only Rules', lines.join('\n'), files).applyTo).toEqual(['src/main/java/app/controller/**']);
  });

  it('4b. a folder the heading names and the body writes as a path is the scope, whatever generic words the heading has', () => {
    const files = ['analyzer/go.mod', 'analyzer/scan.go', 'transx/go.mod', 'transx/copy.go', 'pkg/core/common/util.go', 'docs/rules/severity.md', '.github/agents/review.agent.md', 'main.go'];
    const lines = ['- Keep functions small.', '- Log with the shared logger.', '- Return wrapped errors.', '- Prefer table tests.', '- Avoid globals.'];
    // "Analyzer Module Instructions" is generic words around one name; the body says `analyzer/`.
    const analyzer = heading('Analyzer Module Instructions', ['This directory (`analyzer/`) holds the file system scanner.', ...lines].join('\n'), files);
    expect(analyzer.applyTo).toEqual(['analyzer/**']);
    expect(analyzer.evidence.join('\n')).toContain('names Analyzer and the body writes "analyzer/"');
    // A path below the folder names it too (`transx/go.mod`).
    expect(heading('`transx` Library Instructions', ['Add dependencies to `transx/go.mod`, not the root one.', ...lines].join('\n'), files).applyTo).toEqual(['transx/**']);
    // Path evidence outranks the topic the heading names: Python bindings in `python/` of a Go project.
    const py = ['python/pyproject.toml', 'python/hudi/__init__.py', 'python/tests/test_table.py', 'scripts/release.py', 'main.go'];
    expect(heading('Python', ['Build the bindings in `python/` with maturin.', ...lines].join('\n'), py).applyTo).toEqual(['python/**']);
    expect(heading('Python', lines.join('\n'), py).applyTo).toEqual(['**/*.py']);
    // An English plural in -ies is the same name (`Policy` and `pkg/plugins/policies/`).
    const pol = ['pkg/plugins/policies/core/core.go', 'pkg/plugins/policies/meshtimeout/plugin.go', 'pkg/core/xds.go'];
    expect(heading('Policy Development Guidelines', ['New policies live under `pkg/plugins/policies/`.', ...lines].join('\n'), pol).applyTo).toEqual(['pkg/plugins/policies/**']);
    // Generic words (Rule/Rules) and hidden folders named by a word (GitHub / .github/) are no such evidence.
    expect(heading('Rule guidelines', ['See `docs/rules/` for the list.', ...lines].join('\n'), files).applyTo).toBeNull();
    expect(heading('GitHub Copilot Notes', ['Agents live in `.github/agents/`.', ...lines].join('\n'), files).applyTo).toBeNull();
  });

  it('4c. a heading that names a part of the code by a word ("Command module standards") is that folder, found by singular, plural or a .NET project part', () => {
    const lines = ['- Keep functions small.', '- Log with the shared logger.', '- Return wrapped errors.', '- Prefer table tests.', '- Avoid globals.'];
    const py = ['```python', 'class Copy(Command):', '    pass', '```', '```python', 'register(Copy)', '```'];
    const files = ['src/tool/commands/copy.py', 'src/tool/commands/move.py', 'tests/commands/test_copy.py', 'templates/commands/readme.txt', 'src/tool/main.py', 'docs/plugins/index.md', 'plugins/x.py', 'acme/cli.py', 'a/b/c/widgets/w.py'];
    // One word of the heading names folders in several places: those folders, the section's language files in them.
    const cmd = heading('Command module implementation standards', [...lines, ...py].join('\n'), files);
    expect(cmd.applyTo).toEqual(['**/commands/**/*.py']);
    expect(cmd.evidence.join('\n')).toContain('names command as a concept');
    // The last dotted part of a .NET project's folder names it (`Common` for `Src/Acme.Tool.Common/`).
    const net = ['Src/Acme.Tool.Common/Text.cs', 'Src/Acme.Tool.Common/Data/Row.cs', 'Src/Acme.Tool.Core/Engine.cs', 'Src/Acme.Tool.Gui/App.xaml', 'Tst/Acme.Tool.Common-Tests/TextTests.cs'];
    expect(heading('Common Library Instructions', lines.join('\n'), net).applyTo).toEqual(['Src/Acme.Tool.Common/**']);
    expect(heading('Analyzer Module Instructions', lines.join('\n'), ['analyzer/scan.go', 'main.go', 'cmd/x.go']).applyTo).toEqual(['analyzer/**']);
    // An acronym of two or three capitals names a folder or .NET project part of exactly that name (not `guide/`).
    expect(heading('GUI Instructions', lines.join('\n'), net).applyTo).toEqual(['Src/Acme.Tool.Gui/**']);
    expect(heading('GUI Instructions', lines.join('\n'), ['src/gui/a.ts', 'tools/gui/b.ts', 'guide/c.md', 'main.ts']).applyTo).toEqual(['**/gui/**']);
    // Of two words naming folders, one naming a single folder beats the project's name found in several places.
    const bcc = ['src/python/bcc/__init__.py', 'src/lua/bcc/init.lua', 'examples/hello.py', 'examples/net/tc.py', 'tools/biotop.py'];
    expect(heading('BCC Examples Review Instructions', lines.join('\n'), bcc).applyTo).toEqual(['examples/**']);
    expect(heading('BCC Examples Review Instructions', lines.join('\n'), [...bcc, 'docs/examples/a.md', 'tests/examples/b.py', 'src/examples/c.py']).applyTo).toBeNull();
    // A concept found only among the tests is test data, not a part of the code.
    expect(heading('Corrupt Video Inspector Development Instructions', lines.join('\n'), ['tests/fixtures/test-videos/README.md', 'src/cli/main.py', 'src/core/scan.py']).applyTo).toBeNull();
    // Words in parentheses count only when the rest of the heading names no folder.
    const kuma = ['pkg/kds/sync.go', 'pkg/kds/zone.go', 'app/kuma-cp/main.go', 'pkg/discovery/x.go', 'pkg/services/y.go', 'pkg/lsp/server.go'];
    expect(heading('KDS (Kuma Discovery Service) Guidelines', lines.join('\n'), kuma).applyTo).toEqual(['pkg/kds/**']);
    expect(heading('Language Server Protocol (LSP) Coding Rules', lines.join('\n'), kuma).applyTo).toEqual(['pkg/lsp/**']);
    expect(heading('UI Rules (Admin Bootstrap, PAT UX)', lines.join('\n'), ['ui/src/App.tsx', 'ui/src/main.tsx', 'server/Main.java', 'docs/ui.md']).applyTo).toEqual(['ui/**']);
    // Not: an adjective ("Common Patterns") for a plain folder, the document's own title, how-to-work
    // words, a folder only under docs/, a folder deeper than two levels, a heading with no generic word.
    expect(heading('Common Patterns', lines.join('\n'), ['api/common/a.go', 'tools/common/b.go', 'main.go']).applyTo).toBeNull();
    expect(heading('Acme — Copilot instructions', lines.join('\n'), files).applyTo).toBeNull();
    expect(heading('Command commit rules', lines.join('\n'), files).applyTo).toBeNull();
    // A review of a part names that part ("Adapter Code Review", "Command review rules"), as "<part> rules" does.
    expect(heading('Command review rules', lines.join('\n'), files).applyTo).toEqual(['**/commands/**']);
    // Of folders named like the concept in several places, the one at the top of the tree is its home
    // (`resources/`, not the schemas' `resource/` versions); with none or two at the top, no folder is.
    const dsc = ['resources/apt/src/main.rs', 'resources/ssh/src/lib.rs', 'schemas/resources/a.json', 'schemas/v3/resource/b.json', 'lib/dsc/src/x.rs'];
    expect(heading('Resource Code Review', lines.join('\n'), dsc).applyTo).toEqual(['resources/**']);
    expect(heading('Resource Code Review', lines.join('\n'), dsc.filter((f) => !f.startsWith('resources/'))).applyTo).toBeNull();
    // Without a `plugins/` folder no folder is named; a heading about conventions is then for the code the repository is written in.
    expect(heading('Plugin conventions', lines.join('\n'), files.filter((f) => !f.startsWith('plugins/'))).applyTo).toEqual(['**/*.py']);
    expect(heading('Widget standards', lines.join('\n'), files).applyTo).toBeNull();
    expect(heading('Command module', lines.join('\n'), files).applyTo).toBeNull();
  });

  it('4f. a folder deeper than three levels is named by a heading word alone only where it sits in every module, as a Java package\'s main and test sides do', () => {
    const lines = ['- Keep the public API small.', '- Validate inputs at the boundary.', '- Close what you open.'];
    const jvm = ['core/src/main/java/io/acme/helper/Cli.java', 'core/src/main/java/io/acme/helper/Run.java', 'core/src/test/java/io/acme/helper/CliTest.java', 'core/src/main/java/io/acme/Main.java', 'README.md'];
    expect(heading('helper', lines.join('\n'), jvm).applyTo).toEqual(['**/helper/**']);
    // One package deep in one place is no folder a heading word names.
    expect(heading('helper', lines.join('\n'), jvm.filter((f) => !f.includes('/test/'))).applyTo).toBeNull();
    expect(heading('helper', lines.join('\n'), ['a/b/c/helper/x.ts', 'a/b/c/helper/y.ts', 'main.ts']).applyTo).toBeNull();
    // Three levels down, it is.
    expect(heading('helper', lines.join('\n'), ['a/b/helper/x.ts', 'a/b/helper/y.ts', 'main.ts']).applyTo).toEqual(['a/b/helper/**']);
  });

  it('4z. one file the body keeps naming is a file a task edits, not a scope; a folder it keeps naming is', () => {
    const files = ['package.json', 'src/views/sidebar.ts', 'src/views/panel.ts', 'src/extension.ts', 'README.md'];
    const task = ['1. Add the view id to `package.json` under `contributes.views`.', '2. Register its icon in `package.json` too.', '3. Reload the window.'].join('\n');
    const r = heading('Sidebar sections', task, files);
    expect(r.applyTo).toBeNull();
    const folder = ['1. Put the view in `src/views/`.', '2. Every file of `src/views/` exports one class.', '3. Reload the window.'].join('\n');
    expect(heading('Sidebar sections', folder, files).applyTo).toEqual(['src/views/**']);
    // A heading that names the file still makes it the scope.
    expect(heading('package.json conventions', task, files).applyTo).toEqual(['package.json']);
  });

  it('4z3. a heading that names a kind of file by its extension (".resw Resource Files") is about every file of it, when the tree has several', () => {
    const files = ['src/app/Resources/en-US/Resources.resw', 'src/app/Resources/de-DE/Resources.resw', 'src/other/Strings.resw', 'src/app/main.cpp', 'README.md'];
    const body = ['- Keep every key in every locale.', '- Never translate placeholders.'].join('\n');
    const r = heading('Localization Instructions for .resw Resource Files', body, files);
    expect(r.applyTo).toEqual(['**/*.resw']);
    expect(r.evidence.join('\n')).toContain('names **/*.resw');
    expect(heading('Prompt files (`*.prompt.md`)', body, ['a/x.prompt.md', 'b/y.prompt.md', 'README.md']).applyTo).toEqual(['**/*.prompt.md']);
    // One such file is a file, not a kind of file; a word like ".NET" names no file.
    expect(heading('Localization for .resw files', body, ['src/Strings.resw', 'src/main.cpp']).applyTo).toBeNull();
    expect(heading('Conventions for .NET', body, files).applyTo).toBeNull();
  });

  it('4z4. a language whose only files are tools\' configuration (`eslint.config.js` in a TypeScript project) is no scope; its code files are', () => {
    const files = ['src/index.ts', 'src/client.ts', 'test/client.test.ts', 'eslint.config.js', 'commitlint.config.js', '.prettierrc.cjs', 'vite.config.mts', 'README.md'];
    const body = ['- Prefer `const`; never `var`.', '- Use strict equality.'].join('\n');
    const js = heading('JavaScript conventions', body, files);
    expect(js.applyTo).toBeNull();
    expect(js.evidence.join('\n')).toContain("only tools' configuration files");
    expect(heading('TypeScript conventions', body, files).applyTo).toEqual(['**/*.ts']);
    // One JavaScript file that is code, not configuration, is the language's file again.
    expect(heading('JavaScript conventions', body, [...files, 'scripts/release.js']).applyTo).toEqual(['**/*.js']);
  });

  it('4z2. the paths a task\'s body names ("Adding a new sidebar section") make no scope: the task starts before those files are open', () => {
    const files = ['src/views/sidebar.ts', 'src/views/panel.ts', 'src/extension.ts', 'README.md'];
    const body = ['1. Create the view in `src/views/`.', '2. Export one class per file of `src/views/`.', '3. Reload the window.'].join('\n');
    expect(heading('Adding a new sidebar section', body, files).applyTo).toBeNull();
    expect(heading('3. How to register a panel', body, files).applyTo).toBeNull();
    expect(heading('Sidebar conventions', body, files).applyTo).toEqual(['src/views/**']);
  });

  it('4y. a language whose files sit in a folder named after it (`src/go/`) is that folder; spread over the tree, every file of it', () => {
    const files = ['src/go/main.go', 'src/go/handlers.go', 'src/go/go.mod', 'src/typescript/app.ts', 'src/typescript/routes.ts', 'src/typescript/package.json', 'README.md'];
    const body = ['- Return errors, never panic in handlers.', '- Run `gofmt` before committing.', '- Keep handlers small.'].join('\n');
    expect(heading('Go', body, files).applyTo).toEqual(['src/go/**']);
    const spread = ['cmd/app/main.go', 'internal/db/db.go', 'pkg/api/api.go', 'go.mod', 'README.md'];
    expect(heading('Go', body, spread).applyTo).toEqual(['**/*.go']);
  });

  it('4x. documentation rules are for the docs folder when it holds most of the Markdown; Markdown rules stay for every .md file', () => {
    const site = ['docs/src/index.md', 'docs/src/guide/setup.md', 'docs/src/guide/deploy.md', 'docs/mkdocs.yml', 'README.md', 'src/app.py', 'src/db.py'];
    const body = ['- Every page starts with one `#` title.', '- Write markdown tables with a header row.', '- Link pages relatively.'].join('\n');
    expect(heading('Documentation Site Writing', body, site).applyTo).toEqual(['docs/**/*.md']);
    expect(heading('Markdown style', body, site).applyTo).toEqual(['**/*.md']);
    // A docs folder with fewer than half of the Markdown files is not where the documentation is.
    const spread = ['docs/index.md', 'README.md', 'CONTRIBUTING.md', 'pkg/a/README.md', 'pkg/b/README.md', 'src/app.py'];
    expect(heading('Documentation Site Writing', body, spread).applyTo).toEqual(['**/*.md']);
    // Nor one that holds every Markdown file: the two globs name the same files, and the simpler one also takes new pages.
    expect(heading('Documentation Site Writing', body, site.filter((f) => f !== 'README.md')).applyTo).toEqual(['**/*.md']);
  });

  it('4w. a folder the heading writes as a path outranks a heading word that names another folder', () => {
    const files = ['Source/com/Administrator.h', 'Source/com/Communicator.h', 'Source/Thunder/PluginHost.cpp', 'Source/Thunder/Config.h', 'Source/core/JSON.h', 'README.md'];
    const body = ['- Every interface derives from `Core::IUnknown`.', '- The daemon in `Source/Thunder/` loads the stubs.', '- Release what you acquire.'].join('\n');
    expect(heading('Thunder `com/` Layer — COM-RPC Infrastructure', body, files).applyTo).toEqual(['Source/com/**']);
  });

  it('4v. an acronym in the heading names the folder the body writes ("CLI Integration" and `cli/src/`), unless it is the project\'s name ("DSC Repository")', () => {
    const files = ['cli/src/cli.ts', 'cli/src/helpers.ts', 'cli/package.json', 'ext/src/extension.ts', 'ext/src/panel.ts', 'dsc/src/main.rs', 'dsc/src/args.rs', 'lib/src/lib.rs', 'README.md'];
    const body = ['- Every new metric is also added to the CLI in `cli/src/helpers.ts`.', '- Keep the output of `cli/src/cli.ts` stable.', '- Update the usage text.'].join('\n');
    expect(heading('CLI Integration Requirement', body, files).applyTo).toEqual(['cli/**']);
    const review = ['- Check `dsc/src/` for breaking changes of the command line.', '- Check `lib/src/` for unsafe code.', '- Be brief.'].join('\n');
    expect(heading('Code Review Instructions for DSC Repository', review, files).applyTo).not.toEqual(['dsc/**']);
  });

  it('4u. a package name joins the words a heading writes apart ("Workload API" is `workloadapi/`); test data named like it is not the package', () => {
    const lines = ['- A source keeps serving the last good update.', '- Close the stream on shutdown.', '- No sleeps in tests.'];
    const jvm = [
      'core/src/main/java/io/acme/workloadapi/Source.java',
      'core/src/main/java/io/acme/workloadapi/Client.java',
      'core/src/test/java/io/acme/workloadapi/SourceTest.java',
      'core/src/test/resources/testdata/workloadapi/cert.pem',
      'core/src/main/java/io/acme/Main.java',
      'README.md',
    ];
    expect(heading('Workload API', lines.join('\n'), jvm).applyTo).toEqual(['**/workloadapi/**']);
    expect(heading('workload-api', lines.join('\n'), jvm).applyTo).toEqual(['**/workloadapi/**']);
  });

  it('4g. a heading that names one kind of Copilot customization file is about that kind only', () => {
    const files = ['.github/prompts/release.prompt.md', '.github/agents/reviewer.agent.md', '.github/skills/db/SKILL.md', 'src/a.ts'];
    const body = '- Front matter first: `description`, then the body.\n- Keep each file under 200 lines.\n- Name files in kebab-case, e.g. `release.prompt.md`.\n';
    expect(heading('Prompt file guidelines', body, files).applyTo).toEqual(['**/*.prompt.md']);
    expect(heading('Custom agent guidelines', body, files).applyTo).toEqual(['**/*.agent.md']);
    expect(heading('Agent skills', body, files).applyTo).toEqual(['**/SKILL.md']);
    // Rules for instruction files, in a tree that has none yet, load nowhere else (not on prompt files).
    expect(heading('Custom instructions file guidelines', body, files).applyTo).toBeNull();
    expect(heading('Copilot customization', body, files).applyTo).toEqual(['**/*.prompt.md', '**/*.agent.md', '**/SKILL.md']);
  });

  it('4h. test rules reach every kind of test file the tree has for the language, and no glob repeats another', () => {
    const covers = (applyTo: string[] | null, f: string) => (applyTo ?? []).some((g) => picomatch(g, { dot: true })(f));
    const kotlin = ['app/src/main/kotlin/App.kt', 'app/src/test/kotlin/AppTest.kt', 'app/src/test/kotlin/RepoSpek.kt', 'lib/src/test/kotlin/LibTests.kt', 'lib/src/test/resources/fixture.json'];
    const kt = heading('Testing (Kotlin)', '- Use JUnit 5 and MockK.\n- One assertion per behaviour.\n', kotlin);
    for (const f of kotlin.slice(1)) expect(covers(kt.applyTo, f), f).toBe(true);
    expect(covers(kt.applyTo, kotlin[0]!)).toBe(false);
    // A test file pattern the body names adds to the language's test files, it does not narrow them.
    const named = heading('Testing (Kotlin)', '- Name test classes `*Test.kt`; one assertion per behaviour.\n', kotlin);
    for (const f of kotlin.slice(1)) expect(covers(named.applyTo, f), f).toBe(true);
    const dotnet = ['Api/Controllers/Orders.cs', 'Api.Tests.Unit/Controllers/OrdersTests.cs', 'Api.Tests.Unit/Controllers/OrdersTests.Logic.Post.cs', 'Core.UnitTests/Services/StoreTests.Validations.cs'];
    const cs = heading('Unit testing (C#)', '- Use xUnit and Moq.\n- Given / When / Then comments in every test.\n', dotnet);
    for (const f of dotnet.slice(1)) expect(covers(cs.applyTo, f), f).toBe(true);
    expect(covers(cs.applyTo, dotnet[0]!)).toBe(false);
    const ruby = ['lib/updater.rb', 'updater/spec/updater_spec.rb', 'updater/spec/fixtures/npm/package.json', 'bundler/spec/spec_helper.rb'];
    const rb = heading('Testing with RSpec', '- Use `let` over instance variables.\n- Fixtures live next to the specs.\n', ruby);
    for (const f of ruby.slice(1)) expect(covers(rb.applyTo, f), f).toBe(true);
    // With no language named, a folder of another language's tests (RSpec's `spec/`) counts only where that language's tests are.
    const go = ['pkg/api/server.go', 'pkg/api/server_test.go', 'pkg/api/testdata/spec/valid.yaml'];
    expect(heading('Testing', '- Table-driven tests.\n- Use testify.\n', go).applyTo).toEqual(['**/*_test.go']);
    // A test folder glob of one language's files (Rust's `tests/` folders of `.rs` files) is that language's tests.
    const rust = ['src/lib.rs', 'tests/api.rs', 'crates/core/tests/parse.rs', 'crates/core/src/lib.rs'];
    const rs = heading('Testing', '- One behaviour per test.\n- No sleeps.\n', rust);
    for (const f of rust.filter((x) => x.includes('/tests/') || x.startsWith('tests/'))) expect(covers(rs.applyTo, f), f).toBe(true);
    const js = ['src/button.tsx', 'src/button.spec.ts', 'src/components/__tests__/button.e2e.tsx'];
    const ts = heading('Testing (TypeScript)', '- Use vitest.\n- Snapshot only stable markup.\n', js);
    for (const f of js.slice(1)) expect(covers(ts.applyTo, f), f).toBe(true);
    // A glob whose files another glob of the list already matches is left out.
    expect(new FileIndex(kotlin).withoutCovered(['**/*Test.kt', '**/src/test/**', '**/*.kt'])).toEqual(['**/src/test/**', '**/*.kt']);
    expect(new FileIndex(kotlin).withoutCovered(['**/*Spek.kt', 'app/src/test/kotlin/RepoSpek.kt'])).toEqual(['**/*Spek.kt']);
    // A whole language's glob always stays: it also says where files added later belong.
    expect(new FileIndex(['a/x.py', 'a/readme.md']).withoutCovered(['**/*.py', 'a/**'])).toEqual(['**/*.py', 'a/**']);
    expect(new FileIndex(['a/x.py', 'a/y.py']).withoutCovered(['a/**', '**/*.py'])).toEqual(['**/*.py']);
  });

  it('4i. CI rules are for the workflow files GitHub runs: the YAML directly in .github/workflows/ when that folder holds more', () => {
    const body = '- Pin actions to a commit SHA.\n- Set `permissions:` on every job.\n';
    const mixed = ['.github/workflows/ci.yml', '.github/workflows/README.md', '.github/workflows/parts/build.yml', 'src/a.ts'];
    const ci = heading('GitHub Actions', body, mixed);
    expect(ci.applyTo).toEqual(['.github/workflows/*.yml']);
    expect(topicName(ci.applyTo!)).toBe('CI');
    // A folder of workflow files only keeps the folder's glob.
    expect(heading('GitHub Actions', body, ['.github/workflows/ci.yml', '.github/workflows/release.yaml', 'src/a.ts']).applyTo).toEqual(['.github/workflows/**']);
  });

  it('4j. a heading that names the source folder of a package in a src layout is about the whole package', () => {
    const files = ['pact-python-cli/pyproject.toml', 'pact-python-cli/src/pact_cli/__init__.py', 'pact-python-cli/tests/test_init.py', 'src/pact/__init__.py', 'src/pact/v3/ffi.py', 'docs/index.md'];
    const body = '- Keep the wrapper thin: no logic beyond locating the binary.\n- Version follows the upstream CLI.\n';
    expect(heading('Pact CLI', body, files).applyTo).toEqual(['pact-python-cli/**']);
    // Without a manifest beside `src/` the folder is not a package: the named folder stays the scope.
    expect(heading('Pact CLI', body, files.filter((f) => !f.endsWith('pyproject.toml'))).applyTo).toEqual(['pact-python-cli/src/pact_cli/**']);
  });

  it('4k. a heading that names Markdown is about every Markdown file, not only the docs folder its body names', () => {
    const files = ['docs/guide.md', 'docs/img/logo.png', 'README.md', 'internal/README.md', 'cmd/main.go'];
    const body = '- Wrap Markdown at 120 columns; one sentence per line in `docs/`.\n- Headings in sentence case.\n';
    expect(heading('Markdown documentation instructions', body, files).applyTo).toEqual(['**/*.md']);
    // "Documentation" alone names no kind of file: the folder its body names is the scope.
    expect(heading('Documentation', body, files).applyTo).toEqual(['docs/**']);
  });

  it('4l. "<topic> review" is about the files of the topic, as "<topic> rules" is; "Code review" alone stays repository-wide', () => {
    const files = ['github/resource_repo.go', 'github/resource_repo_test.go', 'github/util_test.go', 'docs/index.md', 'templates/page.md.tmpl', 'main.go'];
    const body = '- Each acceptance test cleans up what it creates.\n- Prefer table tests.\n';
    expect(heading('Provider Test Review', body, files).applyTo).toEqual(['**/*_test.go']);
    expect(heading('Code review', body, files).applyTo).toBeNull();
  });

  it('4m. two heading words in a row that are a folder and its subfolder name that folder', () => {
    const files = ['src/pact/__init__.py', 'src/pact/v2/verifier.py', 'src/pact/v2/consumer.py', 'src/pact/v3/ffi.py', 'tests/v2/test_verifier.py'];
    const body = '- Bug fixes only; new features go to v3.\n- Keep the public names stable.\n';
    expect(heading('Pact V2 Legacy Code', body, files).applyTo).toEqual(['src/pact/v2/**']);
    // One word alone ("V2 Legacy Code") is not enough: `v2` is in two places.
    expect(heading('V2 Legacy Code', body, files).applyTo).toBeNull();
    // A dash between words is no word: it is no top-level "parent" that makes `.github/` the folder after it.
    const app = ['.github/workflows/ci.yml', '.github/ISSUE_TEMPLATE/bug.md', '.github/PULL_REQUEST_TEMPLATE.md', 'app/src/Main.kt', 'app/src/Screen.kt', 'app/build.gradle.kts'];
    expect(heading('Riposte - GitHub Copilot Instructions', body, app).applyTo).toBeNull();
  });

  it('4s. the opening sentence that says which files the section is for is its scope', () => {
    const files = ['.github/workflows/ci.yml', '.github/workflows/release.yml', 'doc/index.rst', 'doc/conf.py', 'src/app/main.py', 'src/app/util.py', 'tests/test_main.py', 'packaging/docker/Dockerfile'];
    const rules = ['- Pin every third-party action to a commit.', '- Keep jobs small.', '- Prefer matrix builds over copies.'].join('\n');
    // "CI Workflow Changes" alone is how to work; its opening says which files it is for.
    const ci = heading('CI Workflow Changes', `Use these rules for files under \`.github/workflows/\`. Apply the shared guidance first.\n\n${rules}`, files);
    expect(ci.applyTo).toEqual(['.github/workflows/**']);
    expect(ci.evidence.join('\n')).toContain('the opening says it applies to');
    expect(heading('Conventions', `These instructions apply to all Python code in the \`src/app/\` directory.\n\n${rules}`, files).applyTo).toEqual(['src/app/**']);
    // A file the statement names once counts, as itself at the root.
    const once = heading('Conventions', `This guidance applies to \`install.py\` and \`src/app/\`.\n\n${rules}`, [...files, 'install.py']);
    expect(once.applyTo).toEqual(['src/app/**', 'install.py']);
    expect(once.evidence.join('\n')).not.toContain('×2');
    // The files a statement names are those files, not the folder they sit in (a mention elsewhere stands for its folder).
    const client = ['src/Core/Client.Users.cs', 'src/Core/Client.Sheets.cs', 'src/Core/IClient.cs', 'src/Core/Entities/User.cs', 'src/Core/Entities/Sheet.cs', 'src/Core/Http.cs'];
    expect(heading('Client', `These rules apply to \`src/Core/Client.*.cs\` and \`IClient.cs\`.\n\n${rules}`, client).applyTo).toEqual(['src/Core/Client.*.cs', 'src/Core/IClient.cs']);
    // Japanese, Chinese and Korean write the files first: "rules applied to `src/Core/Entities/`".
    // Without the statement, the folder is one of two the text names (the same text, last line).
    const tree = [...client, 'tests/Core.Tests/Entities/UserTests.cs', 'tests/Core.Tests/HttpTests.cs'];
    const cs = `${rules}\n\nテストは \`tests/Core.Tests/Entities/\` に置く。\n`;
    expect(heading('エンティティ設計規約', `\`src/Core/Entities/\` に適用されるルールです。\n\n${cs}`, tree).applyTo).toEqual(['src/Core/Entities/**']);
    expect(heading('实体设计', `本规范适用于 \`src/Core/Entities/\` 目录。\n\n${cs}`, tree).applyTo).toEqual(['src/Core/Entities/**']);
    expect(heading('엔티티 설계', `이 규칙은 \`src/Core/Entities/\`에 적용됩니다.\n\n${cs}`, tree).applyTo).toEqual(['src/Core/Entities/**']);
    expect(heading('エンティティ設計規約', `\`src/Core/Entities/\` を参照してください。\n\n${cs}`, tree).applyTo).toEqual(['src/Core/Entities/**', 'tests/Core.Tests/Entities/**']);
    // Named later in the section, the same folder is a mention among others, not the author's statement of scope.
    expect(heading('Conventions', `${rules}\n\nThese instructions apply to all Python code in the \`src/app/\` directory.`, files).applyTo).toEqual(['**/*.py']);
    // Steps of a task say where the task goes, not which files the rules are for.
    expect(heading('Conventions', `Follow these steps to add a module in \`src/app/\`.\n\n${rules}`, files).applyTo).toEqual(['**/*.py']);
    // "Test files under `src/app/`" are that folder's tests, which the folder's glob does not say.
    expect(heading('Conventions', `These rules apply to test files under \`src/app/\`.\n\n${rules}`, files).applyTo).toEqual(['**/*.py']);
  });

  it('4n. a heading that is the name of a folder every module has ("Controllers", `modules/*/Controllers/`) names all of them', () => {
    const body = '- Keep actions thin.\n- Validate input first.\n';
    const files = ['modules/Auth/Controllers/Login.php', 'modules/User/Controllers/Profile.php', 'modules/User/Models/User.php', 'modules/Auth/Models/Token.php', 'common/Helpers/Str.php', 'public/index.php'];
    expect(heading('Controllers', body, files).applyTo).toEqual(['**/Controllers/**']);
    // Not the folders of an adjective ("Integration" tests of several projects), not a folder beside a shallower one of its name.
    const tests = ['tests/Cli.Tests/Integration/RunTests.cs', 'tests/Core.Tests/Integration/LoadTests.cs', 'src/Core/Engine.cs'];
    expect(heading('Integration Patterns', body, tests).applyTo).toBeNull();
    expect(heading('Controllers', body, [...files, 'common/Controllers/Base.php']).applyTo).toEqual(['common/Controllers/**']);
  });

  it('4o. accessibility rules are for the files that render the interface: the component files the tree has', () => {
    const body = '- Every interactive element is reachable by keyboard.\n- Images have alt text.\n';
    const files = ['src/components/Button.tsx', 'src/pages/Home.tsx', 'src/lib/format.ts', 'server/api.ts', 'README.md'];
    expect(heading('Accessibility', body, files).applyTo).toEqual(['**/*.tsx']);
    expect(heading('Tilgjengelighet (WCAG)', body, [...files, 'src/legacy/Old.jsx']).applyTo).toEqual(['**/*.tsx', '**/*.jsx']);
    // A tree without component files gives no scope.
    expect(heading('Accessibility', body, ['src/lib/format.ts', 'server/api.ts', 'README.md']).applyTo).toBeNull();
  });

  it('4d. "project" or "repository" in a heading says whose rules, and does not make a named topic a how-to-work heading', () => {
    const files = ['README.md', 'docs/guide.md', 'docs/api.md', 'src/main.go'];
    const body = '- Write the documentation in plain English.\n- One sentence per line in markdown.\n- Link to the code, not to issues.\n';
    expect(heading('Project documentation writing guidelines', body, files).applyTo).toEqual(['**/*.md']);
    // A how-to-work word still outweighs the weak topic ("documentation build").
    expect(heading('Documentation build setup', body, files).applyTo).toBeNull();
  });

  it('4e. a heading that is only a language\'s name names it in any case (`# go`), not the word inside other words', () => {
    const files = ['main.go', 'pkg/a/a.go', 'README.md'];
    const body = '- Use `new(expr)` for pointers to values.\n- Wrap errors with `%w`.\n';
    expect(heading('go', body, files).applyTo).toEqual(['**/*.go']);
    expect(heading('python', body, ['x.py', 'y.md']).applyTo).toEqual(['**/*.py']);
    expect(heading('how to go fast', body, files).applyTo).toBeNull();
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
    expect(plan.leftover).not.toHaveProperty('limit');
    expect(plan.leftover!.chars).toBeGreaterThan(4000);
    const comm = plan.leftover!.suggestions.find((x) => x.title === 'Communication');
    expect(comm!.chars).toBeGreaterThan(1000);
    expect(plan.riskReasons).toContain(`.github/copilot-instructions.md keeps ${plan.leftover!.chars.toLocaleString('en-US')} characters after the split, attached to every request; ${plan.leftover!.suggestions.length === 1 ? '1 large section there has' : `${plan.leftover!.suggestions.length} large sections there have`} candidate scopes to ask about`);
    expect(plan.riskReasons.join('\n')).not.toContain('4000');
    expect(plan.lossless.ok).toBe(true);
  });

  it('6b. a general heading about how code is written is for the code the repository is written in; security, naming and cross-cutting rules stay, offered as a candidate', () => {
    const rules = (what: string) => Array.from({ length: 30 }, (_, i) => `- ${what} rule ${i}: say what failed and what the caller can do about it.`).join('\n');
    const text = `# Guide\n\n## Error handling\n\n${rules('Error')}\n\n## Coding guidelines\n\n${rules('Code')}\n\n## Security\n\n${rules('Security')}\n\n## Naming conventions\n\n${rules('Naming')}\n\n## Commit conventions\n\n${rules('Commit')}\n\n## CI/CD best practices\n\n${rules('Pipeline')}\n\n## Workflow rules (zero exceptions)\n\n${rules('Workflow')}\n`;
    const files = ['cmd/app/main.go', 'internal/store/db.go', 'internal/store/db_test.go', 'web/app.ts', 'README.md', 'docs/guide.md'];
    const plan = buildPlan({ snapshot: snapshot(text, files), analysis: analyze(snapshot(text, files)) });
    // Go: 3 of 7 files; TypeScript: 1 of 7, over a tenth too.
    const errors = plan.sections.find((x) => x.title === 'Error handling')!;
    expect(errors.applyTo).toBe('**/*.go,**/*.ts');
    expect(errors.evidence).toContain(`heading "Error handling" is about how code is written: the repository's languages`);
    expect(plan.sections.find((x) => x.title === 'Coding guidelines')!.destination).toBe(errors.destination);
    // A heading naming another topic (CI) whose text does not bear it out is no rule for the code either.
    // Nor is "zero exceptions" about exceptions.
    for (const t of ['Security', 'Naming conventions', 'Commit conventions', 'CI/CD best practices', 'Workflow rules (zero exceptions)']) expect(plan.sections.find((x) => x.title === t)!.destination).toBe(REPO_WIDE_PATH);
    // Security is offered the code as a candidate, for the person to decide ...
    const security = plan.leftover!.suggestions.find((x) => x.title === 'Security')!;
    expect(security.candidates).toContainEqual({ applyTo: '**/*.go,**/*.ts', evidence: ["the heading is about how code is written; the repository's languages"] });
    // ... rules for how people work together are not.
    const commits = plan.leftover!.suggestions.find((x) => x.title === 'Commit conventions')!;
    expect(commits.candidates.some((c) => c.evidence.some((e) => e.includes('how code is written')))).toBe(false);
    // Nor is a heading that names a topic its text did not bear out ("CI/CD best practices" without workflow YAML).
    const ci = plan.leftover!.suggestions.find((x) => x.title === 'CI/CD best practices')!;
    expect(ci.candidates.some((c) => c.evidence.some((e) => e.includes('how code is written')))).toBe(false);
  });

  it('6c. error handling: its code examples\' language first; as a subsection it keeps its chapter\'s scope', () => {
    const files = ['cmd/app/main.go', 'internal/store/db.go', 'scripts/gen.py', 'web/app.ts', 'README.md'];
    const fenced = '## Error handling\n\n```python\nraise ValueError("x")\n```\n\n```python\nexcept KeyError:\n    pass\n```\n';
    expect(heading('Error handling', fenced, files).applyTo).toEqual(['**/*.py']);
    // HTML pages do not make a repository an Angular one: the code rules are for its TypeScript.
    expect(heading('Error handling', '- Say what failed.\n', ['src/a.ts', 'src/b.ts', 'site/index.html', 'site/about.html', 'README.md']).applyTo).toEqual(['**/*.ts']);
    // "<topic> code review" names what is reviewed: performance rules for reviewing the code are for the code.
    expect([...(heading('Performance code review', '- Flag allocations in loops.\n', files).applyTo ?? [])].sort()).toEqual(['**/*.go', '**/*.py', '**/*.ts']);
    expect(heading('Code review', '- Flag allocations in loops.\n', files).applyTo).toBeNull();
    const long = (what: string) => Array.from({ length: 20 }, (_, i) => `- ${what} rule ${i}: keep it short and name what failed.`).join('\n');
    const text = `# Guide\n\n## Web app\n\nEverything in \`web/\`.\n\n### React components\n\n${long('Component')}\n\n### Error handling\n\n${long('Error')}\n`;
    const tree = [...files, 'web/App.tsx', 'admin/Panel.tsx'];
    const plan = buildPlan({ snapshot: snapshot(text, tree), analysis: analyze(snapshot(text, tree)) });
    // The chapter is split (its React part has a scope of its own); its error handling stays with the web app's rules.
    expect(plan.sections.find((x) => x.title === 'React components')!.applyTo).toBe('**/*.tsx');
    const web = plan.sections.find((x) => x.title === 'Web app')!;
    const part = plan.sections.find((x) => x.title === 'Error handling')!;
    expect(web.applyTo).toContain('web/**');
    expect(part.destination).toBe(web.destination);
    expect(part.applyTo).toBe(web.applyTo);
  });
});
