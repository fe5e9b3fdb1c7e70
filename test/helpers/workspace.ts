import { createHash } from 'node:crypto';
import { cpSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { tempWorkspace } from './harness.js';

export const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/orders-service');

/** A temp copy of the bundled example repository. */
export function exampleWorkspace(): string {
  const root = tempWorkspace('co-example-');
  cpSync(EXAMPLE, root, { recursive: true });
  return root;
}

/** sha256 of every file outside .copilot-state, by relative path. */
export async function digest(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      if (e.name === '.copilot-state') continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else out[path.relative(root, abs).split(path.sep).join('/')] = createHash('sha256').update(await fsp.readFile(abs)).digest('hex');
    }
  }
  await walk(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

export async function readTraces(root: string): Promise<Array<Record<string, unknown> & { seq: number; action: string; outcome: string }>> {
  const dir = path.join(root, '.copilot-state', 'elicitation-traces');
  const files = (await fsp.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  const recs = await Promise.all(files.map(async (f) => JSON.parse(await fsp.readFile(path.join(dir, f), 'utf8'))));
  return recs.sort((a, b) => a.seq - b.seq);
}
