/** Temp folders and files for tests; imports no server code (cheap for unit and io tests). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Write `data` at `rel` under `root`, making the folders on the way. */
export function put(root: string, rel: string, data: string | Uint8Array): void {
  const abs = path.join(root, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, data);
}

/** A new temp folder holding `files` (relative path → bytes); the caller removes it. */
export function workspaceWith(prefix: string, files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, data] of Object.entries(files)) put(root, rel, data);
  return root;
}

/**
 * Temp folders removed after each test. Call once at the top of a test file; the function it
 * returns makes one (named `prefix…`).
 */
export function tempDirsPerTest(defaultPrefix: string): (prefix?: string) => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return (prefix = defaultPrefix) => {
    const d = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
