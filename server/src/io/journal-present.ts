/**
 * Whether a migration or rollback left its journal behind: the one cheap check before crash
 * recovery is loaded. Server start and `analyze` ask it first, so that without a journal they
 * load none of recovery's modules (backup, journal format, lock, traces). Anything at the
 * journal's path but nothing (a folder, a broken link, an unreadable entry) counts as present:
 * recovery then looks and reports.
 */
import { promises as fsp } from 'node:fs';
import { journalFile } from './layout.js';

export async function journalPresent(root: string): Promise<boolean> {
  try {
    await fsp.lstat(journalFile(root));
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
