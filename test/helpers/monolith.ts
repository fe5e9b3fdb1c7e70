/** Workspaces whose instructions are one synthetic monolith (the generator the benchmarks use). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempWorkspace } from './harness.js';

const GENERATOR = '../../bench/synthetic.mjs';

export async function syntheticMonolith(bytes: number, seed = 42): Promise<string> {
  const mod = (await import(GENERATOR)) as { makeSyntheticMonolith(bytes: number, seed: number): string };
  return mod.makeSyntheticMonolith(bytes, seed);
}

/** A temp workspace with `.github/copilot-instructions.md` = `text` and a few source files. */
export function monolithWorkspace(text: string): string {
  const root = tempWorkspace('co-mono-');
  mkdirSync(path.join(root, '.github'), { recursive: true });
  writeFileSync(path.join(root, '.github', 'copilot-instructions.md'), text);
  for (const f of ['src/index.ts', 'src/app.tsx', 'scripts/tool.py', 'cmd/main.go', '.github/workflows/ci.yml']) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '// x\n');
  }
  return root;
}
