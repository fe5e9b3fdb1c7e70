/**
 * What loads where, for a workspace: the instruction files as they are (the snapshot's sources)
 * and as the plan would leave them, measured over the snapshot's file list (core/loads.ts).
 * No SDK imports, no I/O: the snapshot was read by whoever calls.
 */
import { attachedTo, applyOperations, loadFigure, loadRules, SURFACES, type Attached, type InstructionText, type LoadFigure, type Surface } from '../core/loads.js';
import type { Snapshot } from '../core/types.js';
import { utf8TextWithoutBom } from '../core/utf8.js';
import { withDuplicateCost } from '../core/agents/duplicate-cost.js';
import type { Plan } from '../schemas/plan.js';

/** The instruction files of the snapshot, decoded (every source it read: Copilot's and other agents'); each text is decoded once for the analysis, the plan and this (core/utf8.ts). */
function instructionTexts(snapshot: Snapshot): InstructionText[] {
  return snapshot.sources.map((s) => ({ path: s.path, text: utf8TextWithoutBom(s.bytes) }));
}

/** The per-file figure of a plan on a snapshot: before = the files now, after = the plan's operations applied; with what duplicated rules cost on each surface. */
export function figureFor(snapshot: Snapshot, plan: Pick<Plan, 'operations' | 'lossless'>): LoadFigure {
  const before = instructionTexts(snapshot);
  const after = applyOperations(before, plan.operations);
  return withDuplicateCost(loadFigure(snapshot.files, before, after), snapshot.files, before, after, { plan, sources: new Map(snapshot.sources.map((s) => [s.path, s.bytes])) });
}

export interface SurfaceExplanation {
  surface: Surface;
  before: { attached: Attached[]; skipped: Attached[]; chars: number };
  after: { attached: Attached[]; skipped: Attached[]; chars: number };
}

/** Which instruction files apply to `file` on each surface, before and after the plan, and why. */
export function explainFile(snapshot: Snapshot, plan: Pick<Plan, 'operations'> | null, file: string): SurfaceExplanation[] {
  const before = instructionTexts(snapshot);
  const rb = loadRules(before);
  const ra = loadRules(plan ? applyOperations(before, plan.operations) : before);
  const side = (rules: typeof rb, surface: Surface) => {
    const r = attachedTo(rules, file, surface);
    return { ...r, chars: r.attached.reduce((n, a) => n + a.chars, 0) };
  };
  return SURFACES.map((surface) => ({ surface, before: side(rb, surface), after: side(ra, surface) }));
}

export interface Explanation {
  workspace: string;
  path: string;
  /** Whether the path is a file of the tree (else it is matched as written). */
  inTree: boolean;
  /** The plan compared against: the current stored one (re-derived), else one made now and not stored; null when there is no instruction source. */
  plan: { planId: string; source: 'current' | 'made-now' } | null;
  surfaces: Array<SurfaceExplanation & { name: string }>;
}
