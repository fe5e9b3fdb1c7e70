/**
 * The workspace's file list, indexed for scope inference: how many files a glob matches (and
 * the first), which directories exist and under which names. Built once per plan from the
 * snapshot's file list and passed to every inference, so each glob is matched against the
 * files once per plan however many sections name it.
 */
import picomatch from 'picomatch';

export interface GlobStat {
  count: number;
  first: string | null;
}

const GLOB_CHARS = /[*?[\]{}()!+@\\]/;

/** How many slashes a path has. */
export function depth(p: string): number {
  let n = 0;
  for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) === 47) n++;
  return n;
}

/**
 * A directory or word as compared by name: `Azure_API`, `azure-api`, `azure api` and `azureapi` are one
 * name (Java and Go packages join a name's words: "Workload API" is `workloadapi/`).
 */
export function normName(s: string): string {
  return s.toLowerCase().replace(/[-_ .]+/g, '');
}

/** A predicate equal to picomatch(glob, { dot: true }), with literal shortcuts for the common shapes. */
function globTest(glob: string): (p: string) => boolean {
  const suffix = /^\*\*\/\*([^/]*)$/.exec(glob);
  const under = /^([^*?[\]{}()!+@\\]+)\/\*\*$/.exec(glob);
  if (suffix && !GLOB_CHARS.test(suffix[1]!)) {
    const s = suffix[1]!;
    return (p) => {
      const slash = p.lastIndexOf('/');
      return p.length - slash - 1 >= s.length && p.endsWith(s);
    };
  }
  if (under) {
    const d = under[1]!;
    const prefix = `${d}/`;
    return (p) => p === d || p.startsWith(prefix);
  }
  if (!GLOB_CHARS.test(glob)) return (p) => p === glob;
  try {
    return picomatch(glob, { dot: true });
  } catch {
    return () => false;
  }
}

/** A whole language's files: `**` then `/*.py` (one extension, any folder). */
export const LANGUAGE_GLOB = /^\*\*\/\*\.[A-Za-z0-9]+$/;
/** A whole folder: a path without glob characters, then `/**` (`src/api/**`). */
export const FOLDER_GLOB = /^[^*?[\]{}]+\/\*\*$/;

export class FileIndex {
  private readonly globs = new Map<string, GlobStat>();
  private dirCounts: Map<string, number> | null = null;
  private names: Map<string, string[]> | null = null;

  /** `files`: workspace-relative POSIX paths (the snapshot's list). */
  constructor(readonly files: readonly string[]) {}

  /** How many files a glob matches and the first of them (picomatch, `dot: true`). */
  stat(glob: string): GlobStat {
    const cached = this.globs.get(glob);
    if (cached) return cached;
    const test = globTest(glob);
    let count = 0;
    let first: string | null = null;
    for (const f of this.files) {
      if (test(f)) {
        count++;
        if (first === null) first = f;
      }
    }
    const stat = { count, first };
    this.globs.set(glob, stat);
    return stat;
  }

  /**
   * The globs without those whose every file another of them matches too (the `*Test.java` glob
   * next to the `src/test/` one when every such file is under `src/test/`); of two with the same files,
   * the first stays. A maintainer writes neither redundant glob. A whole language's glob
   * (`**` then `/*.py`) always stays: it also says where the files added later belong.
   */
  withoutCovered(globs: readonly string[]): string[] {
    if (globs.length < 2) return [...globs];
    const sets = globs.map((g) => this.matchingAny([g]));
    const covers = (a: Set<number>, b: Set<number>): boolean => a.size >= b.size && [...b].every((i) => a.has(i));
    const language = globs.map((g) => LANGUAGE_GLOB.test(g));
    // Of two globs with the same files, a language's glob stays, else the first.
    const before = (j: number, i: number): boolean => language[j]! || j < i;
    const dropped = (i: number): boolean =>
      !language[i] && sets.some((o, j) => j !== i && covers(o, sets[i]!) && (o.size > sets[i]!.size || before(j, i)));
    return globs.filter((_, i) => !dropped(i));
  }

  /** The files (as indexes into `files`) that at least one of the globs matches. */
  matchingAny(globs: readonly string[]): Set<number> {
    const tests = [...new Set(globs)].map(globTest);
    const out = new Set<number>();
    this.files.forEach((f, i) => {
      if (tests.some((t) => t(f))) out.add(i);
    });
    return out;
  }

  /** Whether a glob matches at least one file. */
  matches(glob: string): boolean {
    return this.stat(glob).first !== null;
  }

  /** A directory glob that covers nearly every file is not a scope. */
  coversAlmostAll(count: number): boolean {
    return this.files.length >= 10 && count >= this.files.length * 0.9;
  }

  /**
   * The folder most of the files `globs` match sit in, when its name says what they are
   * (`isFolder` of the segment, e.g. `tests`): the path up to that segment, the share of the
   * matched files under it, and how many files were matched. Null when nothing matches.
   */
  mainFolder(globs: readonly string[], isFolder: (segment: string) => boolean): { dir: string; share: number; matched: number } | null {
    const tests = globs.map(globTest);
    const byDir = new Map<string, number>();
    let matched = 0;
    for (const f of this.files) {
      if (!tests.some((t) => t(f))) continue;
      matched++;
      const segs = f.split('/');
      const i = segs.slice(0, -1).findIndex(isFolder);
      if (i >= 0) {
        const d = segs.slice(0, i + 1).join('/');
        byDir.set(d, (byDir.get(d) ?? 0) + 1);
      }
    }
    if (!matched) return null;
    let best: [string, number] | null = null;
    for (const e of byDir) if (!best || e[1] > best[1] || (e[1] === best[1] && e[0] < best[0])) best = e;
    return best ? { dir: best[0], share: best[1] / matched, matched } : { dir: '', share: 0, matched };
  }

  /** Directory path -> number of files under it. */
  private get dirs(): Map<string, number> {
    if (!this.dirCounts) {
      const dirs = new Map<string, number>();
      for (const f of this.files) {
        for (let i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) {
          const d = f.slice(0, i);
          dirs.set(d, (dirs.get(d) ?? 0) + 1);
        }
      }
      this.dirCounts = dirs;
    }
    return this.dirCounts;
  }

  /** Directories whose last segment has this normalised name (normName), shallowest first. */
  dirsNamed(name: string): readonly string[] {
    if (!this.names) {
      const byName = new Map<string, string[]>();
      for (const d of [...this.dirs.keys()].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))) {
        const n = normName(d.slice(d.lastIndexOf('/') + 1));
        const list = byName.get(n);
        if (list) list.push(d);
        else byName.set(n, [d]);
      }
      this.names = byName;
    }
    return this.names.get(name) ?? [];
  }

  /**
   * Directories, shallowest first, whose last segment (normName), or the last dotted part of it
   * (`Company.Product.Common` is also `common`, `dotted` true), passes `like`.
   */
  dirsNamedLike(like: (seg: string, dotted: boolean) => boolean): string[] {
    const out: string[] = [];
    for (const d of this.dirs.keys()) {
      const seg = d.slice(d.lastIndexOf('/') + 1);
      // The last part of a dotted (`Product.Common`) or dashed (`mq-lsp`) name: a project's prefix and the part's name.
      const cut = Math.max(seg.lastIndexOf('.'), seg.lastIndexOf('-'));
      if (like(normName(seg), false) || (cut > 0 && like(normName(seg.slice(cut + 1)), true))) out.push(d);
    }
    return out.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Whether `name` is a file at the root of the tree. */
  isRootFile(name: string): boolean {
    return this.rootFiles.has(name);
  }

  /** The one root file named `stem.ext` for an upper-case `stem` (`CHANGELOG` -> `CHANGELOG.md`), or null. */
  rootFileWithStem(stem: string): string | null {
    const found = [...this.rootFiles].filter((f) => f.startsWith(`${stem}.`) && !f.slice(stem.length + 1).includes('.'));
    return found.length === 1 ? found[0]! : null;
  }

  private roots: Set<string> | null = null;
  private get rootFiles(): Set<string> {
    this.roots ??= new Set(this.files.filter((f) => !f.includes('/')));
    return this.roots;
  }

  /** Resolve a bare file name (`plugin_api.py`) to the one file of that name, or null (none or several). */
  resolveFile(name: string): string | null {
    let found: string | null = null;
    for (const f of this.files) {
      if (f === name || f.endsWith(`/${name}`)) {
        if (found !== null) return null;
        found = f;
      }
    }
    return found;
  }

  /** Resolve a mentioned directory (`azure_api`, `src/api`) to a glob over an existing directory, or null. */
  resolveDir(path: string): string | null {
    // From the repository's root (`/api`): that folder or nothing; a slash command (`/fix`) names no folder of the root.
    if (path.startsWith('/')) return this.dirs.has(path.slice(1)) ? `${path.slice(1)}/**` : null;
    if (this.dirs.has(path)) return `${path}/**`;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const candidates = this.dirsNamed(normName(last)).filter((d) => d === path || d.endsWith(`/${path}`));
    if (candidates.length === 1) return `${candidates[0]}/**`;
    if (candidates.length > 1) return `**/${path}/**`;
    return null;
  }
}
