/**
 * Read the instruction sources of a workspace into a Snapshot (the only input of the pure
 * core). Nothing here throws for a bad source: a file we will not read goes to `refused`
 * with the reason, so analyze can report it and propose can refuse to plan over it.
 *
 * Sources:
 * - `.github/copilot-instructions.md`                     kind 'copilot-repo'
 * - `.github/instructions/**\/*.instructions.md`           kind 'copilot-path'
 * - kind 'other-agent' (core/agents/formats.ts names each format): AGENTS.md, CLAUDE.md and
 *   GEMINI.md at the root and in any folder (`.claude/CLAUDE.md` too), .cursorrules,
 *   `.cursor/rules/**\/*.mdc` (symlinked folders inside are refused by name, not followed),
 *   `.windsurf/rules/*.md`, .windsurfrules, .clinerules (a file, or the .md and .txt files
 *   directly inside a `.clinerules/` folder), the .md and .txt files of `.cline/rules/`.
 *
 * Refused: anything whose real path (symlinks followed, `.github` itself included) is
 * outside the workspace, anything that is not a regular file, files over the size cap,
 * binary content (a NUL byte) and invalid UTF-8.
 */
import { isUtf8 } from 'node:buffer';
import { promises as fsp, type Dirent, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import type { RefusedSource, Snapshot, SourceFile, SourceKind } from '../core/types.js';
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, REPO_WIDE_PATH } from '../core/copilot-format.js';
import { STATE_DIR } from './layout.js';
import { isWithin, type NotRead, readRegularFileSync } from './workspace.js';
import { thousands } from '../core/sanitize.js';

const DEFAULT_MAX_SOURCE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 200_000;

/** Folders the file walk never enters. */
const SKIP_DIRS = new Set(['.git', 'node_modules', STATE_DIR]);

const OTHER_AGENT_FILES = ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.cursorrules', '.windsurfrules', '.clinerules'];
const NESTED_AGENT_FILES = new Set(['AGENTS.md', 'CLAUDE.md', 'GEMINI.md']);

export interface SnapshotOptions {
  /** Largest source file read, in bytes (default 10 MB). */
  maxSourceBytes?: number;
  /** Most workspace files listed (default 200,000); the list is marked truncated beyond. */
  maxFiles?: number;
}

interface Candidate {
  rel: string;
  kind: SourceKind;
}

type ReadResult = { ok: true; bytes: Uint8Array; linkTo?: string } | { ok: false; reason: string } | { ok: 'missing' };

const KIND_ORDER: Record<SourceKind, number> = { 'copilot-repo': 0, 'copilot-path': 1, 'other-agent': 2 };

/** Code-unit order: deterministic whatever the locale. */
function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errnoOf(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'unknown error';
}

/** Which symlink (the file itself or one of its folders) leads out, for the message. */
async function symlinkCulprit(root: string, rel: string): Promise<string> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const sub = parts.slice(0, i).join('/');
    try {
      if ((await fsp.lstat(path.join(root, sub))).isSymbolicLink()) return sub;
    } catch {
      break;
    }
  }
  return rel;
}

/**
 * One source, read with system calls on this thread (realpath, open, fstat, read, close): a few
 * files, for which thread-pool round trips cost more than the reads.
 */
async function readSource(root: string, realRoot: string, rel: string, maxBytes: number): Promise<ReadResult> {
  const abs = path.join(root, ...rel.split('/'));
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // A dangling symlink is a source we cannot read; a missing file is no source at all.
      try {
        if (lstatSync(abs).isSymbolicLink()) return { ok: false, reason: 'it is a symlink to nothing (dangling)' };
      } catch {
        /* missing */
      }
      return { ok: 'missing' };
    }
    if (code === 'ELOOP') return { ok: false, reason: 'it is a symlink loop' };
    return { ok: false, reason: `it cannot be read (${code})` };
  }
  if (!isWithin(realRoot, real)) {
    const culprit = await symlinkCulprit(root, rel);
    return {
      ok: false,
      reason: culprit === rel ? 'it is a symlink that leads outside the workspace' : `${culprit} is a symlink that leads outside the workspace`,
    };
  }

  // O_NONBLOCK: opening a FIFO must not hang; O_NOFOLLOW on the resolved path: no late swap to a link.
  let data: Buffer | NotRead;
  try {
    data = readRegularFileSync(real, { maxBytes });
  } catch (e) {
    return { ok: false, reason: `it cannot be read (${errnoOf(e)})` };
  }
  if ('notRegular' in data) return { ok: false, reason: 'it is not a regular file' };
  if ('tooLarge' in data) return { ok: false, reason: `it is ${thousands(data.tooLarge)} bytes, over the ${thousands(maxBytes)}-byte limit` };
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.length);
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { ok: false, reason: `it looks binary (NUL byte at offset ${nul})` };
  if (!isUtf8(bytes)) return { ok: false, reason: 'it is not valid UTF-8' };
  // Reached through a symlink: where it really is, workspace-relative (another agent's rule file may be a link to a Copilot file).
  const realRel = path.relative(realRoot, real).split(path.sep).join('/');
  return realRel === rel ? { ok: true, bytes } : { ok: true, bytes, linkTo: realRel };
}

/** A folder's entries, or null when it cannot be listed; a system call on this thread (see listWorkspaceFiles). */
function readdirSafe(abs: string): Dirent[] | null {
  try {
    return readdirSync(abs, { withFileTypes: true });
  } catch {
    return null;
  }
}

/**
 * Candidate `.instructions.md` files under `.github/instructions` (recursively; nested
 * symlinked folders are not followed). The folder itself may be a symlink that stays inside.
 * Entries with such a name that are not files (a folder, a FIFO) go to `taken`: a plan must
 * not choose them as a destination, since migrate would then refuse them as having appeared.
 */
async function instructionCandidates(root: string, realRoot: string, refused: RefusedSource[], taken: string[]): Promise<Candidate[]> {
  const top = path.join(root, ...INSTRUCTIONS_DIR.split('/'));
  let real: string;
  try {
    real = realpathSync.native(top);
  } catch {
    return [];
  }
  if (!isWithin(realRoot, real)) {
    const culprit = await symlinkCulprit(root, INSTRUCTIONS_DIR);
    refused.push({ path: INSTRUCTIONS_DIR, kind: 'copilot-path', reason: `${culprit} is a symlink that leads outside the workspace` });
    return [];
  }
  const out: Candidate[] = [];
  const walk = async (absDir: string, relDir: string): Promise<void> => {
    const entries = readdirSafe(absDir);
    if (!entries) return;
    for (const e of entries) {
      const rel = `${relDir}/${e.name}`;
      if (e.isDirectory()) await walk(path.join(absDir, e.name), rel);
      if (!e.name.toLowerCase().endsWith(INSTRUCTIONS_SUFFIX)) continue;
      if (e.isFile() || e.isSymbolicLink()) {
        if (e.name.endsWith(INSTRUCTIONS_SUFFIX)) out.push({ rel, kind: 'copilot-path' });
      } else taken.push(rel);
    }
  };
  await walk(top, INSTRUCTIONS_DIR);
  return out;
}

/**
 * Rule files under a rules folder (`.cursor/rules`, recursively; `.windsurf/rules`, one level).
 * A symlinked folder inside is not followed: it is refused by name, so nothing goes unreported.
 */
async function ruleFolderCandidates(root: string, dir: string, suffixes: readonly string[], recursive: boolean, refused: RefusedSource[]): Promise<Candidate[]> {
  const ruleName = (name: string) => suffixes.some((x) => name.endsWith(x));
  const out: Candidate[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = readdirSafe(path.join(root, ...rel.split('/')));
    for (const e of entries ?? []) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (recursive) await walk(child);
      } else if (e.isSymbolicLink() && !ruleName(e.name)) {
        const isDir = await fsp.stat(path.join(root, ...child.split('/'))).then((st) => st.isDirectory(), () => false);
        if (isDir && recursive) refused.push({ path: child, kind: 'other-agent', reason: 'it is a symlinked folder of rules, which is not followed' });
      } else if ((e.isFile() || e.isSymbolicLink()) && ruleName(e.name)) out.push({ rel: child, kind: 'other-agent' });
    }
  };
  await walk(dir);
  return out;
}

/** Whether `abs` (links followed) is a folder; false when it cannot be stat'ed (missing, a loop). */
function isFolderSync(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

async function otherAgentCandidates(root: string, refused: RefusedSource[]): Promise<Candidate[]> {
  const agents = OTHER_AGENT_FILES.map(async (name): Promise<Candidate[]> => {
    let isDir: boolean;
    try {
      // lstat first: a dangling or looping link is still a candidate (readSource refuses it)
      const lst = lstatSync(path.join(root, name));
      isDir = lst.isDirectory() || (lst.isSymbolicLink() && isFolderSync(path.join(root, name)));
    } catch {
      return [];
    }
    if (!isDir || name !== '.clinerules') return [{ rel: name, kind: 'other-agent' }];
    // Cline also reads the .md and .txt files of a `.clinerules/` folder (docs.cline.bot, "Rules").
    return (readdirSafe(path.join(root, name)) ?? []).filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.(md|txt)$/.test(e.name)).map((e) => ({ rel: `${name}/${e.name}`, kind: 'other-agent' }));
  });
  const found = await Promise.all([...agents, ruleFolderCandidates(root, '.cursor/rules', ['.mdc'], true, refused), ruleFolderCandidates(root, '.windsurf/rules', ['.md'], false, refused), ruleFolderCandidates(root, '.cline/rules', ['.md', '.txt'], false, refused)]);
  return found.flat();
}

/** Cursor and Windsurf rules folders below the root (Cursor and Windsurf read those too). */
const NESTED_RULES = /^.+\/\.(cursor\/rules\/.+\.mdc|windsurf\/rules\/[^/]+\.md)$/;

/** AGENTS.md, CLAUDE.md and GEMINI.md below the root (`.claude/CLAUDE.md` included), and rules of nested rules folders, from the file walk. */
function nestedAgentCandidates(files: readonly string[]): Candidate[] {
  return files.filter((f) => (f.includes('/') && NESTED_AGENT_FILES.has(f.slice(f.lastIndexOf('/') + 1))) || NESTED_RULES.test(f)).map((rel) => ({ rel, kind: 'other-agent' }));
}

/** Folders listed between two turns of the event loop. */
const DIRS_PER_TURN = 64;

/**
 * Every workspace file as a sorted relative POSIX path. Breadth first, folders in name
 * order, so that when the cap is hit the kept part is the same on every run; symlinked
 * folders are not followed (a symlink to a file is listed).
 */
export async function listWorkspaceFiles(root: string, maxFiles: number): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let truncated = false;
  let level: Array<{ abs: string; rel: string }> = [{ abs: root, rel: '' }];
  let listed = 0;
  while (level.length && !truncated) {
    // Folders are listed with system calls on this thread (no thread-pool round trip per folder),
    // and the event loop gets a turn every DIRS_PER_TURN folders, so a large tree does not hold it.
    const listings: Array<Dirent[] | null> = new Array(level.length);
    for (let i = 0; i < level.length; i++) {
      if (++listed % DIRS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      listings[i] = readdirSafe(level[i]!.abs);
    }
    const next: Array<{ abs: string; rel: string }> = [];
    const levelFiles: string[] = [];
    level.forEach((dir, i) => {
      for (const e of listings[i] ?? []) {
        const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) next.push({ abs: path.join(dir.abs, e.name), rel });
        } else if (e.isFile() || e.isSymbolicLink()) {
          levelFiles.push(rel);
        }
      }
    });
    levelFiles.sort(byPath);
    for (const f of levelFiles) {
      if (files.length >= maxFiles) {
        truncated = true;
        break;
      }
      files.push(f);
    }
    next.sort((a, b) => byPath(a.rel, b.rel));
    level = next;
  }
  files.sort(byPath);
  return { files, truncated };
}

export async function readSnapshot(root: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const maxBytes = opts.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
  const realRoot = realpathSync.native(root);
  const refused: RefusedSource[] = [];
  const taken: string[] = [];

  // Each candidate is read as soon as it is found, while the file list is still being walked.
  const readAll = (cs: Candidate[]) => Promise.all(cs.map(async (c) => ({ c, r: await readSource(root, realRoot, c.rel, maxBytes) })));
  const [found, walk] = await Promise.all([
    Promise.all([readAll([{ rel: REPO_WIDE_PATH, kind: 'copilot-repo' }]), instructionCandidates(root, realRoot, refused, taken).then(readAll), otherAgentCandidates(root, refused).then(readAll)]),
    listWorkspaceFiles(root, maxFiles),
  ]);
  found.push(await readAll(nestedAgentCandidates(walk.files)));

  const sources: SourceFile[] = [];
  found.flat().forEach(({ c, r }) => {
    if (r.ok === 'missing') return;
    if (r.ok === false) refused.push({ path: c.rel, kind: c.kind, reason: r.reason });
    else sources.push({ path: c.rel, kind: c.kind, bytes: r.bytes, size: r.bytes.length, sha256: sha256Hex(r.bytes), ...(r.linkTo !== undefined ? { linkTo: r.linkTo } : {}) });
  });
  const order = (a: { kind: SourceKind; path: string }, b: { kind: SourceKind; path: string }): number => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || byPath(a.path, b.path);
  sources.sort(order);
  refused.sort(order);
  return { sources, refused, files: walk.files, filesTruncated: walk.truncated, taken: taken.sort(byPath) };
}
