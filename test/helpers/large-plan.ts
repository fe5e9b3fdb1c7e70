/**
 * A workspace whose plan is large in every way the plan view must show whole: many destination
 * files (one per package, each scoped by its own glob), a repository-wide diff far over the
 * bounded form's 400 rows, moved runs far longer than its 12 lines, kept runs far longer than its
 * context, and a line longer than its 200 characters.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempWorkspace } from './harness.js';

export const LARGE_PACKAGES = 30;
/** Lines in each package's section after its heading (a moved run of 2 + this many lines). */
const LARGE_RULES = 16;
export const LONG_LINE = `- Keep this whole: ${'z'.repeat(600)} end.`;

export function largePlanMonolith(): string {
  const parts = ['# Engineering rules\n', '', 'Be concise. Explain trade-offs before large changes.', ''];
  for (let i = 0; i < LARGE_PACKAGES; i++) {
    const name = `pkg${String(i).padStart(2, '0')}`;
    parts.push(`## Package ${name}`, '', `Rules for \`packages/${name}/\` (TypeScript sources in \`packages/${name}/src/\`).`, '');
    for (let j = 0; j < LARGE_RULES; j++) parts.push(`- ${name} rule ${j}: keep \`packages/${name}/src/index.ts\` exports sorted.`);
    parts.push('');
    if (i % 5 === 4) {
      parts.push(`## General notes ${i}`, '');
      for (let j = 0; j < 14; j++) parts.push(`- General note ${i}.${j}: write clear commit messages.`);
      if (i === 9) parts.push(LONG_LINE);
      parts.push('');
    }
  }
  return `${parts.join('\n')}\n`;
}

export function largePlanWorkspace(): string {
  const root = tempWorkspace('co-large-');
  mkdirSync(path.join(root, '.github'), { recursive: true });
  writeFileSync(path.join(root, '.github', 'copilot-instructions.md'), largePlanMonolith());
  for (let i = 0; i < LARGE_PACKAGES; i++) {
    const dir = path.join(root, 'packages', `pkg${String(i).padStart(2, '0')}`, 'src');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'index.ts'), 'export {};\n');
    writeFileSync(path.join(dir, 'util.ts'), 'export {};\n');
  }
  writeFileSync(path.join(root, 'package.json'), '{"name":"large","private":true}\n');
  return root;
}
