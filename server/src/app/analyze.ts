/**
 * The read side of analyze, shared by MCP, CLI and the gates' re-derivation: snapshot -> analyze.
 * Its own module so that what only analyzes (the `analyze` command) loads no plan store, state
 * or schema code.
 */
import { analyze } from '../core/analyze.js';
import type { Analysis, Snapshot } from '../core/types.js';
import { readSnapshot } from '../io/snapshot.js';

export async function snapshotAndAnalyze(root: string): Promise<{ snapshot: Snapshot; analysis: Analysis }> {
  const snapshot = await readSnapshot(root);
  const analysis = analyze(snapshot);
  return { snapshot, analysis };
}
