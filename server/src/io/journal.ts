/**
 * The migration journal (`.copilot-state/journal.json`) and the side files a migration or
 * rollback puts next to its targets. Everything here is bookkeeping for crash safety; the
 * steps themselves live in apply.ts, undo.ts and rollback.ts.
 *
 * Side files have names derived from the migration id and the target path alone
 * (`.co-stage-<h>.tmp`, `.co-trash-<h>`, `.co-restore-<h>.tmp`), so recovery can find and
 * remove them from the journal without any other record, and never confuses them with a
 * user's file.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { JournalSchema, type Journal } from '../schemas/journal.js';
import { atomicWriteFile, fsyncDir } from './durable.js';
import { assertStateWrite, resolveInside, unlessMissing } from './workspace.js';
import { journalFile, stateDir } from './layout.js';

/** The journal, or null when no migration or rollback is under way. */
export async function readJournal(root: string): Promise<Journal | null> {
  const raw = await unlessMissing(() => fsp.readFile(journalFile(root), 'utf8'));
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const r = JournalSchema.safeParse(parsed);
  if (!r.success) {
    throw new OnboardingError(
      ErrorCode.STATE_CORRUPT,
      'The migration journal .copilot-state/journal.json is unreadable, so it is unknown whether an interrupted migration must be undone. No file was touched.',
      {
        next:
          'Compare the instruction files with .copilot-state/backups/ (the newest manifest lists what the migration changed); ' +
          'once the workspace is as you want it, delete .copilot-state/journal.json.',
      },
    );
  }
  return r.data;
}

/** Replace the journal atomically and durably (the folder is fsynced so the rename survives a power cut). */
export async function writeJournal(root: string, journal: Journal): Promise<void> {
  const data = JournalSchema.parse(journal);
  await assertStateWrite(root, journalFile(root)); // safety: journal-write-recheck
  await atomicWriteFile(journalFile(root), `${JSON.stringify(data, null, 2)}\n`);
  await fsyncDir(stateDir(root));
}

export async function clearJournal(root: string): Promise<void> {
  await assertStateWrite(root, journalFile(root)); // safety: clear-journal-confined
  await fsp.rm(journalFile(root), { force: true });
  await fsyncDir(stateDir(root));
}

const SIDECAR_RE = /^\.co-(?:stage|restore)-[0-9a-f]{16}\.tmp$|^\.co-trash-[0-9a-f]{16}$/;

/** Absolute path of a side file for `rel` (same folder, so the final rename is atomic). */
export function sidecarPath(root: string, rel: string, kind: 'stage' | 'trash' | 'restore', migrationId: string): string {
  const abs = resolveInside(root, rel);
  const h = sha256Hex(`${kind}\0${migrationId}\0${rel}`).slice(0, 16);
  return path.join(path.dirname(abs), kind === 'trash' ? `.co-trash-${h}` : `.co-${kind}-${h}.tmp`);
}

/**
 * Remove every side file (of any migration) in the folders holding `rels`. Only called
 * under the workspace lock, once the side files are known to be useless: trash files only
 * after their content was restored from the verified backup or the migration was done.
 */
export async function sweepSidecars(root: string, rels: Iterable<string>): Promise<string[]> {
  const dirs = new Set<string>();
  for (const rel of rels) dirs.add(path.dirname(resolveInside(root, rel)));
  const removed: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      continue;
    }
    let any = false;
    for (const name of names) {
      if (!SIDECAR_RE.test(name)) continue;
      await fsp.rm(path.join(dir, name), { force: true });
      removed.push(path.relative(root, path.join(dir, name)).split(path.sep).join('/'));
      any = true;
    }
    if (any) await fsyncDir(dir);
  }
  return removed;
}
