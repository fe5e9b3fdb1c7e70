/**
 * The one renderer of the text a person reads before saying yes: the approve, migrate and
 * rollback forms (and the terminal's rollback prompt, which shows the same text).
 *
 * Clients differ: VS Code renders the elicitation message as CommonMark, the MCP Inspector
 * collapses it into one paragraph, a terminal shows it raw. So the text is built to be right
 * in all three: summary first (what, counts, what loads where, risk, backup, problems), then at
 * most 20 destination files, each with its glob, its size and its first section titles;
 * blocks separated by a blank line; `- ` bullets; every path, glob and id in a code span (so
 * `**` and `<id>` stay literal); every line a complete sentence (still readable when
 * whitespace collapses); the whole message at most 4,000 characters whatever the input.
 *
 * question_ask's form is rendered here too: the agent's question is untrusted text like a heading.
 *
 * Security: every string that did not come from this module (paths, headings, globs, problem
 * messages, migration ids) passes through core/sanitize, so no control, escape or bidi
 * character reaches the person and no single value can push the question off the screen.
 */
import type { Plan } from '../schemas/plan.js';
import { code, prose, thousands } from './sanitize.js';
import { figureLine, type LoadFigure } from './loads.js';

/** The most characters a form message may have. */
export const FORM_MAX_CHARS = 4000;
/** The most files listed by name; the rest are counted and referenced. */
const FORM_MAX_FILES = 20;
const MAX_PROBLEMS = 5;
const PATH_MAX = 120;
const GLOB_MAX = 100;
/** Section titles named per destination file, and the longest title shown. */
const TITLES_SHOWN = 3;
const TITLE_MAX = 60;

const fmt = thousands;
const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;

/** Join blocks with a blank line, dropping list items from the end until the whole fits. */
function assemble(head: string[], list: { intro: string; items: string[]; more: (hidden: number) => string } | null, tail: string[]): string {
  const join = (items: string[] | null, hidden: number) => {
    const blocks = [...head];
    if (list && items) {
      const lines = [...items];
      if (hidden > 0) lines.push(list.more(hidden));
      blocks.push(list.intro, lines.join('\n'));
    }
    blocks.push(...tail);
    return blocks.filter((b) => b !== '').join('\n\n');
  };
  if (!list) return clamp(join(null, 0));
  const all = list.items;
  const shown = Math.min(all.length, FORM_MAX_FILES);
  for (let n = shown; n >= 0; n--) {
    const text = join(all.slice(0, n), all.length - n);
    if (text.length <= FORM_MAX_CHARS) return text;
  }
  return clamp(join([], all.length));
}

/** Last resort: head and tail blocks are bounded by construction; this only guards the sum. */
function clamp(text: string): string {
  return text.length <= FORM_MAX_CHARS ? text : `${text.slice(0, FORM_MAX_CHARS - 1)}…`;
}

function planHeader(plan: Plan): string {
  return `plan ${code(plan.planId)} (SHA-256 ${code(`${plan.sha256.slice(0, 12)}…`)})`;
}

function summary(plan: Plan, figure: LoadFigure | null): string {
  const n = (op: string) => plan.operations.filter((o) => o.op === op).length;
  const reasons = plan.riskReasons.length ? ` (${plan.riskReasons.slice(0, 3).map((r) => prose(r, 160)).join('; ')}${plan.riskReasons.length > 3 ? '; …' : ''})` : '';
  return [
    `Summary: ${plural(n('modify'), 'file')} modified, ${plural(n('create'), 'file')} created, ${plural(n('delete'), 'file')} deleted.`,
    ...(figure ? [figureLine(figure)] : []),
    `Risk: ${plan.risk}${reasons}.`,
    `Problems found: ${plan.problems.length ? fmt(plan.problems.length) : 'none'}.`,
    plan.lossless.ok ? 'Lossless check: passed, every byte of the original is kept.' : 'Lossless check: FAILED, do not approve.',
  ].join('\n');
}

/** `, sections: A; B; C and 2 more` — the first section titles a file holds, in source order. */
function titles(list: readonly string[] | undefined, lead: string): string {
  if (!list?.length) return '';
  const shown = list.slice(0, TITLES_SHOWN).map((t) => prose(t, TITLE_MAX));
  const rest = list.length - shown.length;
  return `, ${lead}: ${shown.join('; ')}${rest > 0 ? ` and ${fmt(rest)} more` : ''}`;
}

function fileItems(plan: Plan): string[] {
  const before = new Map(plan.sources.map((s) => [s.path, s.size]));
  const applyTo = new Map(plan.sections.filter((s) => s.applyTo).map((s) => [s.destination, s.applyTo as string]));
  const held = new Map<string, string[]>();
  for (const s of plan.sections) {
    const list = held.get(s.destination);
    if (list) list.push(s.title);
    else held.set(s.destination, [s.title]);
  }
  const rank = { modify: 0, delete: 1, create: 2 } as const;
  return [...plan.operations]
    .sort((a, b) => rank[a.op] - rank[b.op])
    .map((o) => {
      const p = code(o.path, PATH_MAX);
      const moved = plan.agents?.splits?.find((x) => x.mode === 'move' && x.source === o.path);
      if (moved) return `- Modify ${p} (${fmt(before.get(o.path) ?? 0)} → ${fmt(o.size)} bytes): its ${fmt(moved.outputs.length)} path-specific part(s) move to the files below, and it imports each (${moved.pointers.slice(0, 3).map((x) => code(x, PATH_MAX)).join(', ')}${moved.pointers.length > 3 ? ` and ${fmt(moved.pointers.length - 3)} more` : ''}) so its agent still reads them.`;
      if (o.op === 'modify') return `- Modify ${p} (${fmt(before.get(o.path) ?? 0)} → ${fmt(o.size)} bytes)${titles(held.get(o.path), 'keeping sections')}.`;
      if (o.op === 'delete') return `- Delete ${p}.`;
      const glob = applyTo.get(o.path);
      return `- Create ${p}${glob ? ` for files matching ${code(glob, GLOB_MAX)}` : ''} (${fmt(o.size)} bytes)${titles(held.get(o.path), 'sections')}.`;
    });
}

function problemsBlock(plan: Plan): string {
  if (!plan.problems.length) return '';
  const lines = plan.problems.slice(0, MAX_PROBLEMS).map((p) => {
    const where = p.lines.length ? ` (line ${p.lines.slice(0, 5).join(', ')})` : '';
    return `- ${p.severity === 'error' ? 'Error' : p.severity === 'warning' ? 'Warning' : 'Note'}: ${prose(p.message, 200)}${where}.`;
  });
  if (plan.problems.length > MAX_PROBLEMS) lines.push(`- … and ${fmt(plan.problems.length - MAX_PROBLEMS)} more problems, listed in the plan.`);
  return `Problems:\n\n${lines.join('\n')}`;
}

/** Where the stored plan and the backups are, workspace-relative (io/layout owns these paths). */
export interface FormPaths {
  planFile: string;
  backupsDir: string;
}

function fileList(plan: Plan, where: FormPaths) {
  const items = fileItems(plan);
  if (!items.length) return null;
  return {
    intro: items.length > FORM_MAX_FILES ? `Files (the first ${FORM_MAX_FILES} of ${fmt(items.length)}):` : `Files (${fmt(items.length)}):`,
    items,
    more: (hidden: number) =>
      `- … and ${fmt(hidden)} more. Full list: resource ${code('copilot-onboarding://plan/current')} and ${code(where.planFile, PATH_MAX)}.`,
  };
}

/** Shown only to clients that render MCP Apps: the propose result links the plan view. */
export const PLAN_VIEW_LINE = 'To see every file and glob, open the plan view from the last onboarding_propose.';

/**
 * `figure`: what loads where with this plan (app/loads figureFor), shown as one line of the summary.
 * `planView`: the client renders MCP Apps; one line points to the plan view.
 */
export function approveForm(plan: Plan, where: FormPaths, figure: LoadFigure | null = null, opts: { planView?: boolean } = {}): string {
  return assemble(
    [`Approve ${planHeader(plan)}?`, summary(plan, figure), opts.planView ? PLAN_VIEW_LINE : '', `Backup: onboarding_migrate makes a tar.gz backup in ${code(where.backupsDir, PATH_MAX)} and checks it before the first write.`],
    fileList(plan, where),
    [problemsBlock(plan), 'Choose Yes (true) to approve this plan, or decline. Approving records your decision only: files change when you later confirm onboarding_migrate.'],
  );
}

export function migrateForm(plan: Plan, where: FormPaths & { archive: string }, figure: LoadFigure | null = null): string {
  return assemble(
    [
      `Migrate now with ${planHeader(plan)}, which you approved?`,
      summary(plan, figure),
      `Backup: ${code(where.archive, PATH_MAX)} and its manifest are written and checked before the first write.`,
    ],
    fileList(plan, where),
    [problemsBlock(plan), `Rollback: onboarding_rollback, or ${code('copilot-onboarding rollback')} in a terminal.`, 'Choose Yes (true) for both questions to write these files now, or decline.'],
  );
}

export interface RollbackFormInput {
  migrationId: string;
  archive: string;
  manifest: string;
  restore: string[];
  remove: string[];
  edited: string[];
  /** Where the edited files are saved first (a folder, workspace-relative). */
  savedTo: string;
}

export function rollbackForm(r: RollbackFormInput): string {
  const items = [
    ...r.edited.map((p) => `- Edited since the migration: ${code(p, PATH_MAX)} is saved to ${code(r.savedTo, PATH_MAX)} first, then put back as before the migration.`),
    ...r.restore.filter((p) => !r.edited.includes(p)).map((p) => `- Restore ${code(p, PATH_MAX)} byte for byte.`),
    ...r.remove.filter((p) => !r.edited.includes(p)).map((p) => `- Remove ${code(p, PATH_MAX)} (created by the migration).`),
  ];
  const head = [
    `Roll back migration ${code(r.migrationId)} from ${code(r.archive, PATH_MAX)}?`,
    [
      `Summary: ${plural(r.restore.length, 'file')} restored, ${plural(r.remove.length, 'file')} removed.`,
      r.edited.length
        ? `WARNING: ${plural(r.edited.length, 'file was', 'files were')} edited since the migration; ${r.edited.length === 1 ? 'it is' : 'they are'} saved to ${code(r.savedTo, PATH_MAX)} first (your edits stay there), then put back as before the migration.`
        : 'No migrated file was edited since the migration.',
      'The backup was checked against its manifest.',
    ].join('\n'),
  ];
  const list = items.length
    ? {
        intro: items.length > FORM_MAX_FILES ? `Files (the first ${FORM_MAX_FILES} of ${fmt(items.length)}, edited files first):` : `Files (${fmt(items.length)}):`,
        items,
        more: (hidden: number) => `- … and ${fmt(hidden)} more, listed in the backup manifest ${code(r.manifest, PATH_MAX)}.`,
      }
    : null;
  return assemble(head, list, ['Choose Yes (true) to roll back now, or decline.']);
}

/**
 * The question_ask form: the agent's question, line by line through core/sanitize as prose (no
 * raw HTML, emphasis or links; no control, escape, bidi or separator character; line breaks
 * kept as line breaks). Null when the safe text is longer than a form may be: a person must
 * see the whole question, so the caller refuses it rather than cut it.
 */
export function questionForm(question: string): string | null {
  const text = question
    .split(/\r\n|\r|\n/)
    .map((line) => prose(line, Number.MAX_SAFE_INTEGER))
    .join('\n');
  return text.length <= FORM_MAX_CHARS ? text : null;
}
