/**
 * Plain file operations of the CLI's tooling commands, outside any workspace's state: the demo's
 * scratch copy of an example repository (copy, digest, list, read, remove) and the generated
 * JSON Schema documents (`schemas`). Nothing here persists onboarding state; that goes through
 * io/durable.ts. Kept apart from io/workspace.ts so the commands that start light (serve,
 * analyze) do not load fs-extra.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fse from 'fs-extra';

/** SHA-256 of every file under `root` by its posix path relative to `root`, skipping folders named `skip`. */
export async function treeDigest(root: string, skip: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(dir: string): Promise<void> {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      if (e.name === skip) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else out.set(path.relative(root, abs).split(path.sep).join('/'), createHash('sha256').update(await fsp.readFile(abs)).digest('hex'));
    }
  }
  await walk(root);
  return out;
}

/** A new empty folder in the system's temporary folder, its name starting with `prefix`. */
export function makeTempFolder(prefix: string): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Copy a folder (or file) to `to`, recursively. */
export function copyTree(from: string, to: string): Promise<void> {
  return fse.copy(from, to);
}

/** Remove a folder (or file) and everything in it; nothing if it does not exist. */
export function removeTree(abs: string): Promise<void> {
  return fse.remove(abs);
}

export function readTextFile(abs: string): Promise<string> {
  return fsp.readFile(abs, 'utf8');
}

/** The names in a folder. */
export function listFolder(dir: string): Promise<string[]> {
  return fsp.readdir(dir);
}

export type TextFileStatus = 'unchanged' | 'written' | 'stale' | 'missing';

/** Compare each generated `file → text` with the one in `dir`; with `write`, create `dir` and update the ones that differ. */
export async function syncTextFiles(dir: string, files: Map<string, string>, write: boolean): Promise<Array<{ file: string; status: TextFileStatus }>> {
  const result: Array<{ file: string; status: TextFileStatus }> = [];
  if (write) await fsp.mkdir(dir, { recursive: true });
  for (const [file, text] of files) {
    const target = path.join(dir, file);
    const current = await fsp.readFile(target, 'utf8').catch(() => null);
    if (current === text) {
      result.push({ file, status: 'unchanged' });
    } else if (write) {
      await fsp.writeFile(target, text);
      result.push({ file, status: 'written' });
    } else {
      result.push({ file, status: current === null ? 'missing' : 'stale' });
    }
  }
  return result;
}
