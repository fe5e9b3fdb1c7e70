import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan, serializePlan, verifyLossless } from '../../server/src/core/plan.js';
import { canonicalJson, sha256Hex } from '../../server/src/core/canonical.js';
import { REPO_WIDE_PATH, readFrontMatter } from '../../server/src/core/copilot-format.js';
import { PlanSchema, type Plan } from '../../server/src/schemas/plan.js';
import type { Snapshot } from '../../server/src/core/types.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';


/** A plausible small repository: a few files of the common kinds, so that inferred globs can match. */
const FILES = [
  '.github/copilot-instructions.md',
  '.github/workflows/ci.yml',
  'Dockerfile',
  'README.md',
  'docs/guide.md',
  'package.json',
  'tsconfig.json',
  'src/index.ts',
  'src/index.test.ts',
  'src/components/App.tsx',
  'scripts/build.mjs',
  'pyproject.toml',
  'app/main.py',
  'tests/test_main.py',
  'go.mod',
  'cmd/server/main.go',
  'cmd/server/main_test.go',
  'Cargo.toml',
  'crates/core/src/lib.rs',
  'src/Api/Program.cs',
  'tests/Api.Tests/ProgramTests.cs',
  'infra/main.tf',
  'infra/main.bicep',
  'k8s/deployment.yaml',
  'styles/site.css',
  'db/schema.sql',
  'scripts/setup.sh',
].sort();

function snapshotOf(bytes: Uint8Array): Snapshot {
  return {
    sources: [{ path: REPO_WIDE_PATH, kind: 'copilot-repo', bytes, size: bytes.length, sha256: sha256Hex(bytes) }],
    refused: [],
    files: FILES,
    filesTruncated: false,
  };
}

function plan(bytes: Uint8Array): Plan {
  const snapshot = snapshotOf(bytes);
  return buildPlan({ snapshot, analysis: analyze(snapshot) });
}

function outputsOf(p: Plan): Map<string, Uint8Array | null> {
  return new Map(p.operations.map((o) => [o.path, o.content === null ? null : Buffer.from(o.content, 'utf8')]));
}

describe('EXAMPLE.md through analyze', () => {
  it('reproduces the table from the bundled example repository', () => {
    const root = path.resolve(import.meta.dirname, '../../examples/orders-service');
    const bytes = new Uint8Array(readFileSync(path.join(root, REPO_WIDE_PATH)));
    const files = ['.github/copilot-instructions.md', '.github/workflows/ci.yml', 'docs/architecture.md', 'infra/Dockerfile', 'package.json', 'scripts/export.py', 'src/orders.test.ts', 'src/orders.ts', 'web/App.tsx', 'web/components/OrderList.tsx'];
    const snapshot: Snapshot = { ...snapshotOf(bytes), files };
    const analysis = analyze(snapshot);
    expect(analysis.pattern).toBe('structured');
    const p = buildPlan({ snapshot, analysis });
    expect(p.sections.map((s) => [s.title, s.destination, s.applyTo])).toEqual([
      ['Preamble', REPO_WIDE_PATH, null],
      ['TypeScript', '.github/instructions/typescript.instructions.md', '**/*.ts,**/*.tsx'],
      ['Testing', '.github/instructions/testing.instructions.md', '**/*.test.ts'],
      ['React', '.github/instructions/react.instructions.md', '**/*.tsx'],
      ['Python scripts', '.github/instructions/python.instructions.md', '**/*.py'],
      ['CI', '.github/instructions/ci.instructions.md', '.github/workflows/**'],
      ['Docker', '.github/instructions/docker.instructions.md', '**/Dockerfile'],
      ['Communication', REPO_WIDE_PATH, null],
    ]);
    expect(p.operations.map((o) => o.op)).toEqual(['modify', 'create', 'create', 'create', 'create', 'create', 'create']);
    expect(p.lossless.ok).toBe(true);
    expect(p.risk).toBe('low');
  });
});

describe('plan over the corpus', () => {
  const summary: string[] = [];

  it.each(corpusFiles)('%s', (name) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(name)));
    const p = plan(bytes);
    PlanSchema.parse(p);
    expect(p.lossless.ok).toBe(true);
    expect(verifyLossless(p, new Map([[REPO_WIDE_PATH, bytes]]), outputsOf(p))).toEqual({ ok: true, errors: [] });
    // deterministic
    const again = plan(new Uint8Array(bytes));
    expect(serializePlan(again)).toBe(serializePlan(p));
    // every output under .github/, path-specific ones in .github/instructions/ with valid front matter
    for (const o of p.operations) {
      expect(o.path.startsWith('.github/')).toBe(true);
      expect(path.posix.normalize(o.path)).toBe(o.path);
      if (o.op === 'create') {
        expect(o.path).toMatch(/^\.github\/instructions\/[a-z0-9]+(?:-[a-z0-9]+)*\.instructions\.md$/);
        const fm = readFrontMatter(o.content!);
        expect(fm.errors).toEqual([]);
        expect(fm.applyToShape).toBe('quoted-string');
        expect(fm.applyTo).toBe(p.sections.find((s) => s.destination === o.path)!.applyTo);
      }
    }
    // every section is placed, and a glob only where it matches a file
    expect(p.sections.length).toBeGreaterThan(0);
    for (const s of p.sections) {
      if (s.applyTo === null) expect(s.destination).toBe(REPO_WIDE_PATH);
      else expect(s.evidence.some((e) => / exists \(matches /.test(e))).toBe(true);
    }
    // CRLF gives the same decisions
    const crlf = new TextEncoder().encode(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes).replace(/\r?\n/g, '\r\n'));
    const pc = plan(crlf);
    expect(pc.lossless.ok).toBe(true);
    expect(pc.sections.map((s) => [s.title, s.destination, s.applyTo])).toEqual(p.sections.map((s) => [s.title, s.destination, s.applyTo]));
    const moved = p.sections.filter((s) => s.applyTo !== null);
    summary.push(`${name}: ${p.pattern}, ${p.sections.length} sections, ${moved.length} scoped (${moved.map((s) => `${s.title} -> ${s.applyTo}`).join('; ').slice(0, 300)}), risk ${p.risk}`);
  });

  it('summary', () => {
    console.log(`plan over the corpus:\n  ${summary.join('\n  ')}`);
    expect(summary.length).toBe(corpusFiles.length);
  });

  it('a 1 MB concatenation of the whole corpus plans losslessly and to the same bytes twice (timing lives in bench/)', () => {
    const all = corpusFiles.map((f) => readFileSync(corpusPath(f), 'utf8')).join('\n\n');
    let text = '';
    while (text.length < 1_000_000) text += `${all}\n\n`;
    const bytes = new TextEncoder().encode(text);
    const plans = [0, 1].map(() => {
      const snapshot = { ...snapshotOf(bytes), files: [...FILES] };
      return buildPlan({ snapshot, analysis: analyze(snapshot) });
    });
    expect(plans[0]!.lossless.ok).toBe(true);
    expect(plans[0]!.sections.length).toBeGreaterThan(20);
    expect(canonicalJson(plans[1])).toBe(canonicalJson(plans[0]));
  });
});
