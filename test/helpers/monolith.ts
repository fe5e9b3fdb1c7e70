/** Workspaces whose instructions are one synthetic monolith (the generator the benchmarks use). */
import { workspaceWith } from './files.js';

const GENERATOR = '../../bench/synthetic.mjs';

export async function syntheticMonolith(bytes: number, seed = 42): Promise<string> {
  const mod = (await import(GENERATOR)) as { makeSyntheticMonolith(bytes: number, seed: number): string };
  return mod.makeSyntheticMonolith(bytes, seed);
}

/** A temp workspace with `.github/copilot-instructions.md` = `text` and a few source files. */
export function monolithWorkspace(text: string): string {
  const files = Object.fromEntries(['src/index.ts', 'src/app.tsx', 'scripts/tool.py', 'cmd/main.go', '.github/workflows/ci.yml'].map((f) => [f, '// x\n']));
  return workspaceWith('co-mono-', { '.github/copilot-instructions.md': text, ...files });
}
