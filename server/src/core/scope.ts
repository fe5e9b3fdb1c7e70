/**
 * Section -> applyTo globs, with the evidence that led there: the repository's own evidence first.
 *
 * Signals, strongest first:
 * 0. the heading names a file at the root of the tree (`VERSION`, `CHANGELOG.md`, `Makefile`),
 *    or names by a word a folder the body writes as a path (`Analyzer Module Instructions` and
 *    `analyzer/`), whatever generic words or topics the heading also has;
 * 1. the heading names a language, framework, tool or topic of the taxonomy (taxonomy.ts); a
 *    topic's folder the section names (`docs/`, `e2e/`) beats its default globs, and tests are
 *    the tree's test folder when nearly all its tests live there;
 * 2. the heading, then the body, names paths, globs, file names or folders that exist; a
 *    heading of generic words ("Overview", "Guidelines") names no folder, and under such words
 *    body paths must be named twice or carry the section (under how-to-work words: carry it);
 * 3. the language of the section's code fences;
 * 4. body keywords, only when one family clearly dominates and repeats.
 * A glob is kept only if it matches at least one workspace file (picomatch, `dot: true`).
 * Anything general (communication, commits, review, the preamble) or spread over unrelated
 * languages stays repository-wide: `applyTo: null`.
 *
 * Files are checked through a FileIndex built once per plan (file-index.ts); the words of the
 * text are found by keywords.ts. topicOf names the file a scope goes to (plan.ts groups by it).
 */
import type { ScopeBasis, ScopeResult } from './types.js';
import { formatOf } from './agents/formats.js';
import { FOLDER_GLOB, type FileIndex, LANGUAGE_GLOB, depth, normName } from './file-index.js';
import { CROSS_CUTTING_RE, EVERYWHERE, GENERAL_CORE_RE, GENERAL_RE, GENERAL_SUFFIX_RE, HOW_TO_RUN_RE, TEST_DIRS, TEST_GLOBS, TEST_HINTS, TOPICS, W_PRIMARY, W_SECONDARY, type Topic } from './taxonomy.js';
import { isFileName, scan, type Mention, type TextScan, type TopicScore, SCAN_CAP } from './keywords.js';

/** Words of a heading that say whose rules, not what they are about. */
const QUALIFIER_RE = /(?<![\p{L}\p{N}_])(?:project|repository|repo)(?![\p{L}\p{N}_])/giu;

/** When the heading names the topic, the body only adds evidence and hints: its start is enough. */
const HIT_SCAN_CAP = 8 * 1024;

function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);
}

function keywordEvidence(s: TopicScore): string {
  return `mentions ${[...s.keywords].map(([k, n]) => (n > 1 ? `${quote(k)} ×${n}` : quote(k))).join(', ')}`;
}

interface Kept {
  globs: string[];
  evidence: string[];
}

/**
 * Keep the globs that match at least one file, with a `file exists` line each; drop duplicates,
 * and set apart a language's glob whose files are all tools' configuration (`configOnly`).
 */
function keepExisting(idx: FileIndex, globs: readonly string[]): Kept & { configOnly: string[] } {
  const out: string[] = [];
  const evidence: string[] = [];
  const configOnly: string[] = [];
  for (const g of globs) {
    if (out.includes(g) || configOnly.includes(g)) continue;
    const st = idx.stat(g);
    if (st.first === null) continue;
    if (LANGUAGE_GLOB.test(g) && onlyToolConfig(idx, g, st)) configOnly.push(g);
    else {
      out.push(g);
      evidence.push(`${st.first} exists (matches ${g})`);
    }
  }
  return { globs: out, evidence, configOnly };
}

/** A tool's configuration file (`eslint.config.js`, `vite.config.ts`, `.eslintrc.cjs`): written in a language, not its code. */
const TOOL_CONFIG_RE = /(?:^|\/)(?:[\w-]+(?:\.[\w-]+)*\.config|\.[\w-]+rc)\.[cm]?[jt]sx?$/;

/**
 * Whether every file of a language's glob is a tool's configuration (the `eslint.config.js` and
 * `release.config.js` of a TypeScript project): rules for that language have no code to be for.
 */
function onlyToolConfig(idx: FileIndex, glob: string, st: { count: number; first: string | null }): boolean {
  // The first file the glob matches, known already, settles most cases without another pass over the tree.
  if (st.count > 8 || st.first === null || !TOOL_CONFIG_RE.test(st.first)) return false;
  for (const i of idx.matchingAny([glob])) if (!TOOL_CONFIG_RE.test(idx.files[i]!)) return false;
  return true;
}

function repoWide(evidence: string[]): ScopeResult {
  return { applyTo: null, evidence };
}

/** From this many files on, a folder or language with one file is too small a part of the tree to be a scope. */
const ONE_FILE_TREE = 100;


/** How finish says that the globs matched no file of the tree (inferScope looks for it). */
const NO_FILE_MATCHES = ': no file matches';

function finish(idx: FileIndex, signal: string[], globs: readonly string[], what: string, basis: ScopeBasis): ScopeResult {
  const kept = keepExisting(idx, globs);
  if (kept.globs.length === 0) {
    const tried = globs.length ? `${NO_FILE_MATCHES} ${[...new Set(globs)].slice(0, 6).join(', ')}` : '';
    const config = kept.configOnly.length ? ` (${kept.configOnly.join(', ')} ${kept.configOnly.length > 1 ? 'match' : 'matches'} only tools' configuration files)` : '';
    return repoWide([...signal, `no scope: ${what}${tried}${config}`]);
  }
  if (kept.globs.some((g) => EVERYWHERE.has(g))) return repoWide([...signal, 'no scope: "**" applies everywhere']);
  // In a tree of some size, a folder that holds one file (`SDK/` with one header, a `templates/`
  // with one page), or a language the tree has one file of (the one `.cpp` example of a CodeQL
  // repository), is no part of the code to write rules for. In a small project it may be.
  if (idx.files.length >= ONE_FILE_TREE && kept.globs.every((g) => (FOLDER_GLOB.test(g) || LANGUAGE_GLOB.test(g)) && idx.stat(g).count <= 1) && idx.matchingAny(kept.globs).size <= 1) {
    return repoWide([...signal, `no scope: ${kept.globs.join(', ')} matches one file of the tree's ${idx.files.length}`]);
  }
  const globsLeft = idx.withoutCovered(kept.globs);
  return { applyTo: globsLeft, evidence: [...signal, ...kept.evidence.filter((_, i) => globsLeft.includes(kept.globs[i]!))], basis };
}

/**
 * A sentence that says which files a section is for: "These instructions apply to all files in
 * the `docs/` folder", "This guidance applies only to files under `kotlin/**`", "Use these rules
 * for files under `doc/`".
 */
const STATEMENT_RE = /^(?:(?:these|this)\b[^.]{0,60}?\b(?:appl(?:y|ies)(?: only)? to|(?:are|is) (?:only )?for)|(?:use|follow|apply) (?:these|this|the following) (?:[\w-]+ )?(?:rules|instructions|guidelines|guidance|conventions|standards|practices)\b[^.]{0,40}?\b(?:for|to|when (?:editing|changing|working on))(?: only)?)\b/i;
/**
 * The same statement in Japanese, Chinese or Korean, where the files come first: "`src/Entities/`
 * に適用されるルールです" (rules applied to `src/Entities/`), "适用于 `docs/`", "`api/`에 적용".
 */
const CJK_STATEMENT_RE = /(?:に|へ)適用|适用于|適用於|에\s*적용/;
/** How far into the section its opening runs: the paragraph after the heading, this many characters at most. */
const OPENING_CAP = 600;

/**
 * The files the section's opening says it is for: the paths and globs named in the first
 * sentence of its first paragraph that is such a statement, each named once being enough.
 */
function statedScope(idx: FileIndex, text: string): ScopeResult | null {
  // The heading and the paragraph after it: only the start of a long section is read.
  const lines = text.slice(0, OPENING_CAP * 4).split('\n');
  let i = /^\s{0,3}#/.test(lines[0] ?? '') ? 1 : 0;
  while (i < lines.length && !lines[i]!.trim()) i++;
  const para: string[] = [];
  for (; i < lines.length && lines[i]!.trim() && !/^\s{0,3}(?:#|```|~~~)/.test(lines[i]!); i++) para.push(lines[i]!.trim());
  const opening = para.join(' ').replace(/^>\s*/, '').slice(0, OPENING_CAP);
  const sentence = opening.split(/(?<=[.!?])\s+|(?<=。)/).find((x) => STATEMENT_RE.test(x.replace(/^[*_]+/, '')) || CJK_STATEMENT_RE.test(x));
  if (!sentence) return null;
  const named = pathSignal(idx, scan(sentence).mentions, 'the opening says it applies to', true);
  // "Test files under `github/`": the tests of that folder, which the folder's glob does not say.
  if (!named.globs.length || (/\btests?\b/i.test(sentence) && !named.globs.some((g) => /tests?|specs?/i.test(g)))) return null;
  const r = finish(idx, named.evidence, named.globs, 'the paths its opening names', 'heading');
  return r.applyTo ? r : null;
}

/** A dash that sets a name apart from its description in a heading (em or en dash, a spaced or doubled hyphen). */
const DASH_RE = /\s+(?:—|–|--|-)\s+|\s*(?:—|–)\s*/u;

/** A heading that is an acronym alone ("SDK", "CLI"). */
const ACRONYM_RE = /^\s*[A-Z]{2,5}\s*$/;

/** A heading about the build or the release of the software, not about running it. */
const BUILD_HEADING_RE = /^\s*build\s*$|\bbuild (?:system|configuration|config|scripts?|files?|setup)\b|\breleases?\b(?! notes)/i;
/** Build and release tools whose files the rules of such a heading are for. */
const BUILD_TOOLS = new Set(['gradle', 'maven', 'cmake', 'make', 'goreleaser']);

/** The one topic `which` admits that the body names by a primary keyword or more, if exactly one does. */
function oneBodyTopic(body: TextScan, which: (t: Topic, i: number) => boolean): TopicScore | null {
  const found = [...body.scores.values()].filter((s) => s.strong >= W_PRIMARY && which(TOPICS[s.topic]!, s.topic));
  return found.length === 1 ? found[0]! : null;
}

/** Folder names that hold tests. */
const TEST_FOLDER_RE = /^(?:tests?|tst|specs?|__tests__|e2e)$/i;
/** When at least this share of the tree's test files sit in one test folder, that folder is the scope. */
const TEST_FOLDER_SHARE = 0.8;

/**
 * The tests the tree has: when nearly all files the test globs match sit in one test folder
 * (`tests/`, `frontend/test/`), that folder (where a maintainer puts test rules, fixtures and
 * helpers included); else the globs.
 */
function testFolder(idx: FileIndex, globs: string[], signal: string[]): string[] {
  if (!globs.length) return globs;
  const main = idx.mainFolder(globs, (seg) => TEST_FOLDER_RE.test(seg));
  if (!main || !main.dir || main.share < TEST_FOLDER_SHARE || main.matched < 2) return globs;
  signal.push(`${Math.round(main.share * 100)} % of the ${main.matched} test files are under ${main.dir}/`);
  return [`${main.dir}/**`];
}

/** A test glob that names a whole folder (RSpec's `spec/`, Maven's `src/test/`), not files of one language. */
const TEST_FOLDER_GLOB_RE = /\/\*\*$/;

/**
 * Test file globs of these language families that match files of the tree. When none is named,
 * every family whose test files by name the tree has: a folder glob of a family (RSpec's `spec/`)
 * only where that family's tests are (a Go tree's `spec/` folder is not RSpec's).
 */
function testGlobs(idx: FileIndex, families: readonly string[]): string[] {
  const fams = families.length
    ? families.filter((f) => TEST_GLOBS[f])
    : Object.keys(TEST_GLOBS).filter((f) => TEST_GLOBS[f]!.some((g) => !TEST_FOLDER_GLOB_RE.test(g) && idx.matches(g)));
  return fams.flatMap((f) => [...(TEST_GLOBS[f] ?? [])]).filter((g) => idx.matches(g));
}

interface HeadingWork {
  /** Keywords and paths of the heading itself. */
  head: TextScan;
  /** Topics the heading names (strongly or weakly), and those that count only with body keywords. */
  hits: readonly number[];
  needsBody: readonly number[];
  strongHit: boolean;
}

/** What the heading alone says: the topics it names and its own keywords and paths. */
function headingWork(title: string): HeadingWork {
  const hits: number[] = [];
  const needsBody: number[] = [];
  let strongHit = false;
  const whole = title.toLowerCase();
  TOPICS.forEach((t, i) => {
    // A heading that is only a language's name names it in any case (`# go`, a file's name).
    if (t.heading.test(title) || (t.language && whole === t.name.toLowerCase())) {
      hits.push(i);
      strongHit = true;
    } else if (t.headingWeak?.test(title)) hits.push(i);
    else if (t.headingNeedsBody?.test(title)) needsBody.push(i);
  });
  return { head: scan(title), hits, needsBody, strongHit };
}

/**
 * A section's text and its keyword scans, each made on first use: the plan asks one section
 * several questions (its scope, then candidate scopes when it stays repository-wide) and the
 * text is scanned once for all of them.
 */
export class SectionText {
  private readonly scans = new Map<number, TextScan>();
  constructor(readonly text: string) {}
  /** Keyword scores and mentions of the first `cap` characters. */
  scan(cap = SCAN_CAP): TextScan {
    let sc = this.scans.get(cap);
    if (!sc) this.scans.set(cap, (sc = scan(this.text, cap)));
    return sc;
  }
  /** The longest scan already made (inference's), else a new one: for evidence the start of a long section gives as well. */
  scanned(): TextScan {
    let best: [number, TextScan] | null = null;
    for (const e of this.scans) if (!best || e[0] > best[0]) best = e;
    return best ? best[1] : this.scan();
  }
}

/**
 * Infer a section's applyTo. `input` is the section's text (its heading included), or that text
 * with its scans; `idx` the workspace files (one index for every section of a plan). Deterministic.
 */
export function inferScope(section: { title: string; kind: string; opensFile?: boolean; titleChapter?: boolean }, input: string | SectionText, idx: FileIndex): ScopeResult {
  if (section.kind === 'preamble') return repoWide(['no scope: the preamble stays repository-wide']);
  if (section.kind === 'frontmatter') return repoWide(['no scope: front matter stays repository-wide']);
  const title = section.title.trim().slice(0, 300);
  const label = section.kind === 'topic' ? 'topic' : 'heading';
  const heading = headingWork(title);
  const head = heading.head;

  // 0. The heading names a file at the root of the tree (`VERSION`, `CHANGELOG.md`, `Makefile`), or a kind of file by its name (`Program.cs`).
  const rootFile = headingFile(idx, title);
  if (rootFile) return finish(idx, [`${label} ${quote(title)} names ${rootFile}`], [rootFile], 'a root file', 'heading');

  // The section's opening says which files it is for ("These rules apply to all files under
  // `docs/`", "Use these rules for files under `.github/workflows/`"): the author's own word.
  const stated = statedScope(idx, typeof input === 'string' ? input : input.text);
  if (stated) return stated;

  // 1. Heading names topics of the taxonomy.
  const hits = [...heading.hits];
  const needsBody = heading.needsBody;
  let strongHit = heading.strongHit;
  // The body is scanned only when needed; with a named topic, only its start (for evidence and hints).
  const sectionText = typeof input === 'string' ? new SectionText(input) : input;
  const text = sectionText.text;
  const body = (): TextScan => sectionText.scan(strongHit ? HIT_SCAN_CAP : SCAN_CAP);
  // Generic words ("docs", "documentation") do not confirm it: the body must name the kind of file (markdown, README, `.md`, a markdown fence).
  // A heading of nothing but that word and generic ones ("Documentation instructions") is about
  // it, unless the word is a folder's name ("docs" and `docs/`: that folder, below) or the text
  // documents code (JSDoc, docstrings, comments).
  for (const i of needsBody) {
    const confirmed = (body().scores.get(i)?.strong ?? 0) >= W_SECONDARY;
    if (confirmed || (onlyTopic(title, TOPICS[i]!.headingNeedsBody!) && !(TOPICS[i]!.id === 'docs' && CODE_DOCS_RE.test(text)) && !headingDirectories(idx, title).length)) hits.push(i);
  }
  hits.sort((a, b) => a - b);
  // A topic whose files are written in a form of their own (workflow YAML) needs that form in the text.
  for (let k = hits.length - 1; k >= 0; k--) {
    const authoring = TOPICS[hits[k]!]!.authoring;
    if (authoring && !authoring.test(text)) hits.splice(k, 1);
  }
  // "Workflow guidelines" whose text writes workflow files (`actions/checkout@v4`, `permissions:`, `runs-on:`) are the CI topic's.
  if (!hits.length && WORKFLOW_WORD_RE.test(title) && WORKFLOW_SYNTAX_RE.test(text)) {
    hits.push(CI_TOPIC);
    strongHit = true;
  }
  // Setting up or running a topic's tools is how to work even when the heading names the topic strongly.
  if (hits.length && section.kind !== 'topic' && HOW_TO_RUN_RE.test(title)) {
    return repoWide([`no scope: the ${label} ${quote(title)} is about setting up or running the tools, needed wherever one works`]);
  }
  // "Project" and "repository" only say whose rules ("Project documentation guidelines"): no veto.
  // "<topic> code review" names what is reviewed, as "<topic> rules" names what the rules are for.
  if (hits.length && !strongHit && section.kind !== 'topic' && GENERAL_CORE_RE.test(title.replace(REVIEW_OF_RE, '').replace(QUALIFIER_RE, ' '))) {
    return repoWide([`no scope: the ${label} ${quote(title)} is about how to work more than about files`]);
  }
  // A folder the heading writes as a path ("Thunder `com/` Layer") is the strongest evidence there
  // is: it outranks a heading word that names another folder (the project's `Source/Thunder/`).
  const headPaths = pathSignal(idx, head.mentions, `${label} names`);
  const headFolders = headPaths.globs.length > 0 && !headPaths.overview && headPaths.globs.every((g) => FOLDER_GLOB.test(g));
  if (headFolders) {
    const r = finish(idx, headPaths.evidence, headPaths.globs, 'paths in the heading', 'heading');
    if (r.applyTo) return r;
  }
  // The heading names what the section is about and the body writes where it is (`transx`
  // Library Instructions ... "This directory (`transx/`)"): that folder, whatever generic words
  // the heading has. Path evidence outranks a topic the heading names ("python" whose body works
  // in `python/`, the bindings of a Rust project, is about that folder, not every .py file).
  // Unless three quarters or more of the topic's files lie elsewhere: a `gradle/` folder holds the
  // wrapper, the Gradle rules are for every build script.
  // The file's title addressing the assistant ("MergeMate Copilot Instructions", "Copilot
  // Instructions for Windows Terminal") names the project: its words are no folder of it.
  const projectTitle = section.opensFile === true && ASSISTANT_RE.test(title);
  const agreed = projectTitle ? [] : foldersHeadingAndBodyName(idx, title, body().mentions);
  // The file's title chapter whose heading names the assistant ("Copilot Instructions for
  // khiops-python", "Jupyter Extension - Copilot Instructions") names the project: a topic word in
  // the project's name is not what the file's general rules are for. A path the heading writes is.
  const projectNamed = section.titleChapter === true && COPILOT_TITLE_RE.test(title) && !headPaths.globs.length;
  const topical = hits.length && !projectNamed ? fromHeading(title, label, hits, body(), head, idx) : null;
  if (agreed.length && !(topical?.applyTo && mostlyOutside(idx, topical.applyTo, agreed.map((a) => a.glob)))) {
    return finish(idx, agreed.map((a) => `${label} ${quote(title)} names ${a.word} and the body writes ${quote(a.raw)}`), agreed.map((a) => a.glob), 'directory', 'heading');
  }
  // The heading names a language and, by another word, a folder ("Python Tools Guidelines" and
  // `tools/`, "Assets TypeScript Guidelines" and `assets/`): that language's files in that folder.
  if (topical?.applyTo && hits.every((i) => TOPICS[i]!.language)) {
    const inFolder = languageInFolder(idx, title, hits, topical.applyTo);
    if (inFolder) return inFolder;
  }
  if (topical) {
    // A topic whose files the tree does not have ("Infrastructure" and no Terraform) says nothing
    // about where; a folder the heading names may ("Infrastructure layer" and `infrastructure/`).
    if (topical.applyTo === null && topical.evidence.some((e) => e.includes(NO_FILE_MATCHES))) {
      // A kin tool the body speaks of has the files ("Database & Migrations" and Alembic's `alembic/`).
      const families = new Set(hits.map((i) => TOPICS[i]!.family));
      const kin = oneBodyTopic(body(), (t, i) => !hits.includes(i) && families.has(t.family));
      if (kin) {
        const k = finish(idx, [...topical.evidence.filter((e) => !e.startsWith('no scope')), keywordEvidence(kin)], TOPICS[kin.topic]!.globs, 'keywords', 'keywords');
        if (k.applyTo) return k;
      }
      const concept = conceptFolder(idx, title, head, body());
      if (concept) return finish(idx, [...topical.evidence.filter((e) => !e.startsWith('no scope')), ...concept.evidence], concept.globs, 'directory', 'heading-word');
    }
    return topical;
  }

  // 2. Paths named by the heading, then by the body. Path evidence outranks generic heading
  // words ("Billing API patterns" and src/billing_api/); such words only ask for more of it.
  if (headPaths.globs.length && !headPaths.overview) return finish(idx, headPaths.evidence, headPaths.globs, 'paths in the heading', 'heading');

  const general = GENERAL_RE.test(title);
  // "Tagger — metadata and audio files", "Sim App -- Rules & Patterns": the name before the dash is
  // the part of the code; what follows describes it. Not in the file's title ("UX - Codegen Tooling
  // Suite"), nor before an assistant ("Boyle — GitHub Copilot Instructions"): there the name is the
  // project's. An agent in the name itself ("Runtime Agent — Module Guidelines") is a part of the code.
  const dash = section.opensFile ? null : DASH_RE.exec(title);
  const dashed = dash && !ASSISTANT_RE.test(title.slice(dash.index + dash[0].length)) ? dash : null;
  let named = projectTitle ? [] : headingDirectories(idx, title);
  if (!named.length && dashed) named = headingDirectories(idx, title.slice(0, dashed.index));
  if (named.length) {
    return finish(idx, named.map((d) => `${label} ${quote(title)} names directory ${d.replace(/\/\*\*$/, '/')}`), named, 'directory', 'heading-word');
  }

  // The file's title chapter (its first heading, with the headings under it) holds the file's
  // rules of every kind: the paths, code examples and keywords its body has are the subjects of
  // the whole file, not the files it is for. Only its heading, or an opening that says which files
  // it is for, scopes it; its subsections are still judged one by one.
  const titleBody = section.titleChapter === true;

  // "See `CLAUDE.md`", "update `AGENTS.md`": another agent's instruction file the body names is a
  // pointer to read or keep in step, not the files the section's rules are for.
  const bodyPaths = pathSignal(idx, body().mentions.filter((m) => m.kind === 'dir' || formatOf(m.value) === null), 'mentions');
  if (bodyPaths.overview) return repoWide([`no scope: mentions ${bodyPaths.globs.length} different paths (an overview)`]);
  if (bodyPaths.globs.length && OVERVIEW_RE.test(title)) return repoWide([`no scope: the ${label} ${quote(title)} introduces the project; the paths it names orient`]);
  // One file the body keeps naming (`package.json` in "Sidebar sections", `version.py`
  // in "Version management") is a file a task edits, not the files the rules are for: rules for a
  // file name it in their heading (step 0). Folders and globs the body names still count.
  const oneFile = bodyPaths.globs.length === 1 && !/[*?{[]/.test(bodyPaths.globs[0]!);
  if (bodyPaths.globs.length && !oneFile && !TASK_RE.test(title)) {
    // Generic words never veto path evidence, but they ask for more of it: under a heading about
    // how to work (build, commits, review) the paths must carry the section; under "rules",
    // "guidelines" or "patterns" they must be named twice on a tenth of its lines, or carry it.
    // Under any other heading they must be named twice or on a tenth of its lines, or written as a
    // glob (`terminal/.config/alias/*.alias`, which says which files the section is for): a folder
    // named once in a long section ("Troubleshooting" ... "open `demo/`") is not what it is about.
    const howToWork = CROSS_CUTTING_RE.test(title) || GENERAL_CORE_RE.test(title);
    const share = lineShare(text, bodyPaths.raws);
    if (general ? share >= MIN_PATH_SHARE || (!howToWork && bodyPaths.repeated && share >= MIN_REPEATED_PATH_SHARE) : bodyPaths.repeated || bodyPaths.glob || share >= MIN_REPEATED_PATH_SHARE) {
      if (general || !(bodyPaths.repeated || bodyPaths.glob)) bodyPaths.evidence.push(`${Math.round(share * 100)} % of its lines name these paths`);
      if (titleBody) return repoWide([...bodyPaths.evidence, TITLE_BODY]);
      return finish(idx, bodyPaths.evidence, bodyPaths.globs, 'mentioned paths', 'body-paths');
    }
  }
  // The heading names by a word a folder of the source (`Command module standards` and
  // `src/pkg/commands/`, `Common Library` and `Src/Company.Product.Common/`): that folder.
  const concept = projectTitle ? null : conceptFolder(idx, title, head, body());
  if (concept) return finish(idx, concept.evidence, concept.globs, 'directory', 'heading-word');
  // "Frontend", "UI", "Web app" without a folder of that name: the folder the tree's UI code lives in.
  const ui = projectTitle ? null : frontendFolder(idx, title);
  if (ui) return finish(idx, [`${label} ${quote(title)} names the frontend: ${ui.share} of the tree's UI files (.tsx, .jsx, .vue, .svelte) are in ${ui.dir}/`], [`${ui.dir}/**`], 'directory', 'heading-word');
  // A general heading about how code is written ("Error handling", "Logging", "Code conventions"):
  // the code its examples are in, else the languages the repository is written in. Maintainers who
  // split their own files scope such rules to their code; security and cross-cutting rules stay.
  // Not when the heading names a topic the text did not bear out ("CI/CD best practices" without workflow YAML).
  // "<concern> code review" names what is reviewed ("Performance code review" is about the code).
  if (general && !heading.hits.length && !heading.needsBody.length && CODE_RULES_RE.test(title) && !CROSS_CUTTING_RE.test(title.replace(REVIEW_OF_RE, '')) && !ALWAYS_ON_RE.test(title)) {
    const fenced = fenceLanguage(body(), idx);
    if (fenced) return fenced;
    const langs = repositoryLanguages(idx);
    if (langs.length) return finish(idx, [`${label} ${quote(title)} is about how code is written: the repository's languages`], langs, 'languages', 'languages');
  }
  // A heading about the build or the release ("Build system", "Release review instructions") whose body
  // speaks of one build or release tool (CMake, Gradle, GoReleaser) is for that tool's files.
  if (BUILD_HEADING_RE.test(title) && !HOW_TO_RUN_RE.test(title)) {
    const tool = oneBodyTopic(body(), (t) => BUILD_TOOLS.has(t.id));
    if (tool) {
      const t = TOPICS[tool.topic]!;
      return finish(idx, [`${label} ${quote(title)} is about the build or release`, keywordEvidence(tool)], t.globs, `${t.name} files`, 'keywords');
    }
  }
  if (general) return repoWide([`no scope: general section (${label} ${quote(title)})`]);

  // 3. The language of the section's code fences: its examples say which files it is about.
  const fenced = fenceLanguage(body(), idx);
  if (fenced) return titleBody && fenced.applyTo ? repoWide([...fenced.evidence, TITLE_BODY]) : fenced;

  // 4. Body keywords: one family must clearly dominate, with repeated evidence.
  const keyed = fromBody(body(), idx);
  return titleBody && keyed.applyTo ? repoWide([...keyed.evidence, TITLE_BODY]) : keyed;
}

/** A folder holding more than this share of a language's files is where the code is, not a part of it. */
const MAX_FOLDER_SHARE = 0.75;

/**
 * The heading's languages' files inside the one folder its other words name ("Python Tools
 * Guidelines" and `tools/`: `tools/**` + `/*.py`), when that folder has some of them and not most.
 */
function languageInFolder(idx: FileIndex, title: string, hits: readonly number[], globs: readonly string[]): ScopeResult | null {
  let rest = title;
  for (const i of hits) {
    const t = TOPICS[i]!;
    for (const re of [t.heading, t.headingWeak, t.headingNeedsBody]) if (re) rest = rest.replace(new RegExp(re.source, `${re.flags.replace('g', '')}g`), ' ');
  }
  const dirs = headingDirectories(idx, rest.replace(/\s+/g, ' ').trim());
  if (dirs.length !== 1 || !/\/\*\*$/.test(dirs[0]!)) return null;
  const dir = dirs[0]!.slice(0, -3);
  const kept = globs.filter((g) => g.startsWith('**/') && !g.slice(3).includes('/')).map((g) => `${dir}/${g}`).filter((g) => idx.matches(g));
  if (!kept.length) return null;
  // A folder that holds most of the language's files is where the code is, not a part of it
  // ("Backend Python Guidelines" in a Python backend): the language's files wherever they are.
  const inside = idx.matchingAny(kept).size;
  const all = idx.matchingAny(globs).size;
  if (inside > all * MAX_FOLDER_SHARE) return null;
  const names = hits.map((i) => TOPICS[i]!.name).join(' and ');
  return finish(idx, [`heading ${quote(title)} names ${names} and the folder ${dir}/ (${inside} of the ${all} ${names} files)`], kept, 'paths in the heading', 'heading');
}

/** A heading that addresses the assistant itself ("Copilot instructions for …"). */
const COPILOT_TITLE_RE = /copilot|assistant/i;

/** Why the file's title chapter keeps what its body names repository-wide (inferScope). */
const TITLE_BODY = "no scope: the file's title chapter holds rules of every kind; what its body names is the file's subject, not its scope";

const FRONTEND_RE = /(?<![\p{L}\p{N}_])(?:front[- ]?end|ui|user interface|web ?app|web client|client[- ]side)(?![\p{L}\p{N}_])/iu;
const UI_GLOBS = ['**/*.tsx', '**/*.jsx', '**/*.vue', '**/*.svelte'];
/** The deepest folder (at most three levels down) that holds nine tenths or more of the tree's UI files, for a heading that names the frontend, the UI or the web app. */
function frontendFolder(idx: FileIndex, title: string): { dir: string; share: string } | null {
  if (!FRONTEND_RE.test(title)) return null;
  const files = [...idx.matchingAny(UI_GLOBS)].map((i) => idx.files[i]!);
  if (files.length < 3) return null;
  const byDir = new Map<string, number>();
  for (const f of files) {
    const segs = f.split('/').slice(0, -1);
    for (let d = 1; d <= Math.min(3, segs.length); d++) {
      const dir = segs.slice(0, d).join('/');
      byDir.set(dir, (byDir.get(dir) ?? 0) + 1);
    }
  }
  let best: string | null = null;
  for (const [dir, n] of byDir) if (n >= files.length * 0.9 && (!best || depth(dir) > depth(best))) best = dir;
  if (!best || best.split('/').some((x) => x.startsWith('.')) || idx.coversAlmostAll(idx.stat(`${best}/**`).count)) return null;
  return { dir: best, share: `${byDir.get(best)}/${files.length}` };
}

/** Whether a heading says nothing but `topic`'s word and generic words ("Documentation instructions", "Docs guidelines for Copilot"). */
function onlyTopic(title: string, topic: RegExp): boolean {
  const all = (re: RegExp) => new RegExp(re.source, `${re.flags}g`);
  const rest = title.replace(all(topic), ' ').replace(all(GENERAL_SUFFIX_RE), ' ').replace(all(ONLY_TOPIC_FILLER), ' ');
  return !/[\p{L}\p{N}]/u.test(rest);
}
/** Documentation written in the code: doc comments, docstrings. */
const CODE_DOCS_RE = /\b(?:jsdoc|tsdoc|javadoc|godoc|rustdoc|doxygen|docstrings?|doc[- ]?comments?|xml doc(?:s|umentation)?|comments?)\b/i;
const ONLY_TOPIC_FILLER = /(?<![\p{L}\p{N}_])(?:copilot|github|ai|for|the|and|of|project)(?![\p{L}\p{N}_])/iu;

/** Fences of command lines (```bash) show how to run things, not which files a section is about. */
const COMMAND_FAMILIES = new Set(['shell', 'powershell']);

/**
 * The section's language from its code fences: at least two fences, all of one language family
 * (command-line fences aside), whose files exist. The globs are that language's.
 */
function fenceLanguage(body: TextScan, idx: FileIndex): ScopeResult | null {
  const byFamily = new Map<string, { n: number; topics: Set<number>; keys: string[] }>();
  for (const sc of body.scores.values()) {
    const t = TOPICS[sc.topic]!;
    if (!t.language || COMMAND_FAMILIES.has(t.family)) continue;
    for (const [k, n] of sc.keywords) {
      if (!k.startsWith('```')) continue;
      const e = byFamily.get(t.family) ?? { n: 0, topics: new Set<number>(), keys: [] };
      e.topics.add(sc.topic);
      if (!e.keys.includes(k)) (e.keys.push(k), (e.n += n));
      byFamily.set(t.family, e);
    }
  }
  if (byFamily.size !== 1) return null;
  const [family, e] = [...byFamily][0]!;
  if (e.n < 2) return null;
  // The widest topic of the family the fences name (```ts and ```tsx together are TypeScript).
  const topic = [...e.topics].map((i) => TOPICS[i]!).sort((a, b) => b.globs.length - a.globs.length)[0]!;
  const r = finish(idx, [`its code examples are ${family} (${e.keys.join(', ')})`], topic.globs, `${family} files`, 'fences');
  return r.applyTo ? r : null;
}

/** Headings that introduce the whole project: the paths they name are a map, not a scope. */
const OVERVIEW_RE = /(?<![\p{L}\p{N}_])(?:overview|introduction|intro|about|summary|getting started|what is)(?![\p{L}\p{N}_])/iu;

/**
 * Headings of a task ("Adding a new command", "Build a new blueprint", "Next steps"): the
 * paths the body names are where the task goes, needed when one starts it, before any of those
 * files (some not yet written) is open. They make no scope; a folder the heading names still does.
 */
const TASK_RE = /^\W*(?:\d+\.\s*)?(?:adding|add|creating|create|building|build|how to|when adding|next steps)(?![\p{L}\p{N}_])/iu;

/** Under a generic heading, at least this share of the section's lines must name its paths. */
const MIN_PATH_SHARE = 0.3;
/** ...or, under "rules" / "guidelines", paths named twice on at least this share of them (not twice in a long chapter). */
const MIN_REPEATED_PATH_SHARE = 0.1;

/** Share of the non-blank lines of `text` (its heading left out) that name one of `raws`. */
function lineShare(text: string, raws: readonly string[]): number {
  const all = text.split(/\r\n|\r|\n/);
  // The heading (an ATX line, or a setext title and its underline) is not one of the section's lines.
  const skip = /^\s{0,3}#/.test(all[0] ?? '') ? 1 : /^\s{0,3}(?:=+|-+)\s*$/.test(all[1] ?? '') && (all[0] ?? '').trim() ? 2 : 0;
  const lines = all.slice(skip).filter((l) => l.trim() && !/^\s*(?:```|~~~)/.test(l));
  if (!lines.length) return 0;
  return lines.filter((l) => raws.some((r) => l.includes(r))).length / lines.length;
}

/**
 * The existing paths a text names, as globs with evidence. When some are named more than once,
 * only those count: the folders a section is about beat the ones it mentions in passing. A bare
 * file name (`plugin_api.py`) counts only when named twice and unique in the workspace, and
 * stands for the folder it sits in (a root file for itself); in a sentence that says which files
 * the section is for (`stated`), once is enough.
 */
function pathSignal(idx: FileIndex, mentions: readonly Mention[], where: string, stated = false): Kept & { overview: boolean; raws: string[]; repeated: boolean; glob: boolean } {
  const found: Array<{ glob: string; raw: string; count: number; line: string; written: boolean }> = [];
  for (const m of mentions) {
    let glob: string | null = null;
    let line = '';
    if (m.kind === 'glob') {
      if (EVERYWHERE.has(m.value) || idx.stat(m.value).first === null) continue;
      glob = m.value;
    } else if (m.kind === 'file') {
      const f = m.count >= 2 || stated ? idx.resolveFile(m.value) : null;
      if (!f) continue;
      // A file named by its name (`ExcelTools.cs`, `base.html`) stands for the folder it sits in:
      // the section speaks of that folder's files, not of the one it happens to name. A root
      // file (`pyproject.toml`), or a file the opening says the section applies to, is itself.
      const dir = f.includes('/') ? `${f.slice(0, f.lastIndexOf('/'))}/**` : null;
      glob = dir && !stated && !idx.coversAlmostAll(idx.stat(dir).count) ? dir : f;
      line = glob === f ? ` (file ${f} exists)` : ` (file ${f} exists, in ${dir!.slice(0, -2)})`;
    } else {
      const g = idx.resolveDir(m.value);
      if (!g) continue;
      const st = idx.stat(g);
      if (st.first === null || idx.coversAlmostAll(st.count)) continue;
      glob = g;
      line = ` (directory ${g.replace(/\/\*\*$/, '/')} exists)`;
    }
    const had = found.find((x) => x.glob === glob);
    if (had) had.count += m.count;
    else found.push({ glob, raw: m.raw, count: m.count, line, written: m.kind === 'glob' });
  }
  const top = Math.max(0, ...found.map((x) => x.count));
  const main = top >= 2 ? found.filter((x) => x.count >= 2) : found;
  const times = (n: number): string => (n > 1 ? ` ×${n}` : '');
  return {
    globs: main.map((x) => x.glob),
    evidence: main.map((x) => `${where} ${quote(x.raw)}${times(x.count)}${x.line}`),
    raws: main.map((x) => x.raw),
    overview: main.length > 4 || new Set(main.map((x) => x.glob.split('/')[0])).size >= 3,
    repeated: top >= 2,
    glob: main.some((x) => x.written),
  };
}

/**
 * A file at the root of the tree that a heading names: a word of the heading is its name
 * (`Makefile`, `pyproject.toml`), or, for the upper-case names by convention (`VERSION`,
 * `CHANGELOG.md`), its name without extension written in upper case. Else the files of a name
 * with extension that two or more folders below the root have (`**\/package.json`).
 */
function headingFile(idx: FileIndex, title: string): string | null {
  for (const raw of title.split(/[\s,;:()&/]+/)) {
    const w = raw.replace(/^[`*_'"]+|[`*_'".!?]+$/g, '');
    if (w.length < 4 || !/^[\w.-]+$/.test(w)) continue;
    // A root file whose name two or more folders below have too (README.md of each package) names them all.
    if (idx.isRootFile(w)) return isFileName(w) && idx.stat(`**/${w}`).count >= 3 ? `**/${w}` : w;
    // A file name with its extension that several folders have below the root (`package.json` of
    // each package, `Program.cs` of each host): every file of that name. One such file is a file
    // the section happens to name, not a kind of file.
    if (isFileName(w) && idx.stat(`**/${w}`).count >= 2) return `**/${w}`;
    // A kind of file named by its extension ("Localization for .resw Resource Files",
    // "Prompt Engineering — `.prompt.md`"): every file of that extension, when several exist.
    const ext = /^\*?(\.[a-z][a-z0-9]{1,7}(?:\.[a-z]{1,4})?)$/i.exec(w)?.[1];
    if (ext && idx.stat(`**/*${ext}`).count >= 2) return `**/*${ext}`;
    // The release record a heading names by its word in any case (`Changelog Format` and
    // CHANGELOG.md): rules for writing it are for that file. Other words
    // that happen to be a root file's stem (`Testing` and TESTING.md) name a topic, not the file.
    if (/^[A-Z]+$/.test(w) || RELEASE_RECORD_RE.test(w)) {
      const upper = w.toUpperCase();
      if (idx.isRootFile(upper)) return upper;
      const f = idx.rootFileWithStem(upper);
      if (f) return f;
    }
  }
  return null;
}

/** The root file that records releases, named by a heading word in any case (`Version control` is not the VERSION file). */
const RELEASE_RECORD_RE = /^changelog$/i;

/** A name followed by "repository" or "project" ("DSC Repository"): the project's name. */
const PROJECT_NAME_RE = /[\p{L}\p{N}_-]+\s+(?:project|repository|repo)(?![\p{L}\p{N}_])/giu;

/** Whether a heading word and a folder name are one name (`Analyzer` and `analyzer/`, `Cluster` and `clustering/`, `Command` and `commands/`, `Policy` and `policies/`). */
function sameName(word: string, seg: string): boolean {
  if (word.length < 4 || seg.length < 4) return false;
  const forms = (x: string): string[] => [x, `${x}s`, `${x}es`, `${x}ing`, ...(x.endsWith('y') ? [`${x.slice(0, -1)}ies`] : [])];
  return forms(word).includes(seg) || forms(seg).includes(word);
}

/** Whether at most a quarter of the files `globs` match lie in the files `within` matches. */
function mostlyOutside(idx: FileIndex, globs: readonly string[], within: readonly string[]): boolean {
  const all = idx.matchingAny(globs);
  const inside = idx.matchingAny(within);
  let n = 0;
  for (const f of all) if (inside.has(f)) n++;
  return n * 4 <= all.size;
}

/**
 * Folders both the heading (by name) and the body (as a path) name: a body path one of whose
 * folders has the name of a heading word (not a generic one).
 */
function foldersHeadingAndBodyName(idx: FileIndex, title: string, mentions: readonly Mention[]): Array<{ glob: string; raw: string; word: string }> {
  if (!mentions.some((m) => m.kind === 'dir')) return [];
  // The word before "repository" or "project" is the project's name ("DSC Repository"), not a folder's.
  const words = title
    .replace(PROJECT_NAME_RE, ' ')
    .split(/[^\p{L}\p{N}_-]+/u)
    .filter((w) => w && !DIR_FILLER.has(w.toLowerCase()) && !GENERAL_RE.test(w) && !GENERAL_RE.test(`${w}s`))
    .map((w) => ({ w, n: normName(w) }));
  if (!words.length) return [];
  const out: Array<{ glob: string; raw: string; word: string }> = [];
  for (const m of mentions) {
    if (m.kind !== 'dir') continue;
    const segs = m.value.split('/');
    for (let i = segs.length - 1; i >= 0; i--) {
      const seg = normName(segs[i]!);
      const word = words.find((x) => (/^[A-Z]{2,3}$/.test(x.w) ? x.n === seg : sameName(x.n, seg)));
      if (!word) continue;
      // A hidden folder (`.github/`) is named by its dot, not by a word (GitHub).
      if (segs.slice(0, i + 1).some((x) => x.startsWith('.'))) break;
      const g = idx.resolveDir(segs.slice(0, i + 1).join('/'));
      if (!g || g.startsWith('**/')) break;
      const st = idx.stat(g);
      if (st.first === null || idx.coversAlmostAll(st.count)) break;
      if (!out.some((o) => o.glob === g)) out.push({ glob: g, raw: m.raw, word: word.w });
      break;
    }
  }
  return out;
}

/** Headings that name the assistant or the document, not a part of the code ("KubeTopo — Copilot instructions"). */
const ASSISTANT_RE = /copilot|assistant|\bagents?\b|\bai\b/i;
/** Words that are adjectives in a heading ("Common Patterns"), a folder's name only as a .NET project's part (`Product.Common`). */
const CONCEPT_ADJECTIVES = new Set(['common', 'shared', 'integration', 'general', 'custom', 'basic', 'advanced']);
/** Documentation folders (`docs/`, a docs site's `beeq-docs/`) hold pages about a concept, not its code. */
const DOCS_DIR_RE = /^(?:docs?|documentation)$|[-_.](?:docs?|documentation)$/i;

/** Folders of data or resources beside the code (`src/test/resources/testdata/`): a folder named there is not the code's. */
const DATA_DIR_RE = /^(?:resources|testdata|fixtures)$/i;

/** Java/Kotlin/Scala package folders: their depth is the package name, not the layout (`src/main/java/com/acme/domain`). */
const JVM_PACKAGES_RE = /(?:^|\/)src\/(?:main|test)\/(?:java|kotlin|scala)\//;

/** A heading that ends by saying it is a review of something ("Adapter Code Review", "Engine review"). */
const REVIEW_OF_RE = /\s+(?:code\s+)?reviews?(?:\s+(?:instructions|guidelines|rules|checklist))?\s*$/i;

/** "Script-specific", "Admin-only": the word the suffix qualifies is the concept. */
const QUALIFIER_SUFFIX_RE = /-(?:specific|only|related|focused)$/i;

/** A folder a heading names as a concept sits at most this many slashes deep (`src/pkg/commands`). */
const MAX_CONCEPT_DIR_DEPTH = 2;

/**
 * A folder a heading word names as a concept (`Command` for `commands/`, `Common` for the .NET
 * project `Src/Company.Product.Common/`): the word (not generic, not filler, four letters or
 * more) is the folder's name, its singular or plural, or the last dotted part of its name.
 * Exactly one word of the heading must name folders, all at most two levels down. One folder:
 * that folder; several of one name: every folder of that name (`**\/commands/**`), the section's
 * language files in them when it has one.
 */
function conceptFolder(idx: FileIndex, title: string, head: TextScan, body: TextScan): { globs: string[]; evidence: string[] } | null {
  // "<concept> code review" names what is reviewed, as "<concept> rules" names what the rules are for.
  const reviewed = REVIEW_OF_RE.exec(title);
  const rest = reviewed ? title.slice(0, reviewed.index) : title;
  if (!(reviewed || GENERAL_SUFFIX_RE.test(rest)) || ASSISTANT_RE.test(rest) || CROSS_CUTTING_RE.test(rest)) return null;
  title = rest;
  // A heading of more than a few words is a sentence ("Use `defineMessages` for user-facing text, labels, ..."): its words name no concept.
  if (title.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length > MAX_CONCEPT_HEADING_WORDS) return null;
  const wordsOf = (text: string): string[] =>
    text
      .split(/[^\p{L}\p{N}_-]+/u)
      .map((w) => w.replace(QUALIFIER_SUFFIX_RE, ''))
      .filter((w) => (w.length >= 4 || /^[A-Z]{2,3}$/.test(w)) && !DIR_FILLER.has(w.toLowerCase()) && !GENERAL_RE.test(w))
      .map((w) => normName(w));
  const foldersOf = (words: readonly string[]): Array<{ word: string; dirs: string[] }> => {
    const out: Array<{ word: string; dirs: string[] }> = [];
    for (const w of new Set(words)) {
      // An acronym of two or three capitals (`UI`, `GUI`) names a folder or .NET project part of exactly that name (`ui/`, `Product.Gui`).
      const like = (seg: string, dotted: boolean): boolean => (w.length < 4 ? seg === w : sameName(w, seg) && (dotted || !CONCEPT_ADJECTIVES.has(w)));
      const dirs = idx.dirsNamedLike(like).filter((d) => (depth(d) <= MAX_CONCEPT_DIR_DEPTH || JVM_PACKAGES_RE.test(d)) && !d.split('/').some((x) => x.startsWith('.') || DOCS_DIR_RE.test(x)));
      // A concept found only among the tests (`tests/fixtures/test-videos/`) is test data, not a part of the code.
      if (dirs.length && !dirs.every((d) => d.split('/').some((x) => TEST_FOLDER_RE.test(x)))) out.push({ word: w, dirs });
    }
    return out;
  };
  // Words in parentheses are an aside, what an acronym stands for ("KDS (Kuma Discovery Service)"),
  // or the acronym itself ("Language Server Protocol (LSP)"): they count only when the rest names no folder.
  const outside = foldersOf(wordsOf(title.replace(/\([^)]*\)/g, ' ')));
  let found = outside.length ? outside : foldersOf(wordsOf([...title.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]).join(' ')));
  // Of two words, one naming a single folder and one naming folders in several places (the
  // project's name, "BCC Examples" and `src/python/bcc/`, `src/lua/bcc/`), the single folder is the concept.
  if (found.length === 2) {
    const single = found.filter((f) => f.dirs.length === 1);
    if (single.length === 1) found = single;
  }
  if (found.length !== 1) return null;
  const { word, dirs } = found[0]!;
  const names = new Set(dirs.map((d) => d.slice(d.lastIndexOf('/') + 1)));
  let globs: string[];
  // Of folders named like it in several places, the one at the top of the tree is the concept's
  // home ("Resource Code Review" and `resources/`, beside the schemas' `resource/` versions).
  const top = dirs.filter((d) => !d.includes('/'));
  if (dirs.length === 1) globs = [`${dirs[0]}/**`];
  else if (top.length === 1) globs = [`${top[0]}/**`];
  else if (names.size === 1) {
    const name = [...names][0]!;
    const lang = sectionLanguage(head, body);
    const exts = lang ? (TOPICS.find((t) => t.language && t.family === lang)?.globs ?? []).map((g) => /^\*\*\/\*(\.[\w]+)$/.exec(g)?.[1]).filter((x): x is string => !!x) : [];
    globs = exts.length ? exts.map((e) => `**/${name}/**/*${e}`) : [`**/${name}/**`];
  } else return null;
  if (globs.some((g) => idx.coversAlmostAll(idx.stat(g).count))) return null;
  return { globs, evidence: [`heading ${quote(title)} names ${word} as a concept: ${dirs.slice(0, 3).map((d) => `${d}/`).join(', ')}${dirs.length > 3 ? ', ...' : ''}`] };
}

/** A heading of more words than this is a sentence, not the name of a concept. */
const MAX_CONCEPT_HEADING_WORDS = 8;

/** A folder a heading names by its name alone sits at most this many slashes deep (`src/pkg/azure_api`). */
const MAX_HEADING_DIR_DEPTH = 2;

/** Words that may accompany a directory name in a heading ("Backend folder", "Frontend and backend"). */
const DIR_FILLER = new Set(['directory', 'directories', 'folder', 'folders', 'dir', 'files', 'the', 'and', 'in', 'under', '&']);

/** The files that make a folder a package of its own (its manifest). */
const PACKAGE_MANIFESTS = ['pyproject.toml', 'setup.py', 'package.json', 'Cargo.toml', 'go.mod', 'pom.xml', 'build.gradle', 'build.gradle.kts', '*.csproj'];

/**
 * A folder that is the source root of a package in a `src` layout (`pact-python-cli/src/pact_cli`
 * in `pact-python-cli/`, which has its `pyproject.toml`): the package, whose tests and
 * configuration the package's rules are about too. Null otherwise.
 */
function packageOf(idx: FileIndex, dir: string): string | null {
  const m = /^(.+)\/src\/[^/]+$/.exec(dir);
  return m && PACKAGE_MANIFESTS.some((f) => idx.matches(`${m[1]}/${f}`)) ? m[1]! : null;
}

/**
 * Directories a heading names: the whole heading is a directory's name ("Backend", "Azure API"
 * for `azure_api/`), or every word of it is, apart from filler ("Frontend and backend"). A heading
 * with any other word ("Code Components") names a concept, not a folder.
 */
function headingDirectories(idx: FileIndex, title: string): string[] {
  // A heading of generic words only ("Overview", "Core patterns" is not) names no folder, even
  // when a folder happens to share the word.
  if (title.split(/[^\p{L}\p{N}_-]+/u).every((w) => !w || DIR_FILLER.has(w.toLowerCase()) || GENERAL_RE.test(w))) return [];
  const resolve = (name: string): string | null => {
    // Pages about a concept (`docs/design/`) are not the concept's code, as for concept folders.
    const dirs = idx.dirsNamed(name).filter((d) => !d.split('/').slice(0, -1).some((x) => DOCS_DIR_RE.test(x) || DATA_DIR_RE.test(x)));
    if (!dirs.length) return null;
    // Only an unambiguous directory a maintainer would name in a heading: the shallowest one,
    // alone at its depth, at most three levels down (not `src/a/b/c/logging/core`); or all of
    // them when the shallowest are several (below).
    const d0 = dirs[0]!;
    // A folder of that name in every module (`modules/*/Controllers/`, none shallower): all of them,
    // wherever they are. Not an adjective's folders ("Integration" tests of several projects).
    const sameDepth = dirs.length > 1 && depth(dirs[1]!) === depth(d0);
    const everyModule = sameDepth && !CONCEPT_ADJECTIVES.has(name.toLowerCase());
    if (!everyModule && (sameDepth || depth(d0) > MAX_HEADING_DIR_DEPTH)) return null;
    const g = everyModule && dirs.length > 1 ? `**/${d0.slice(d0.lastIndexOf('/') + 1)}/**` : `${packageOf(idx, d0) ?? d0}/**`;
    const st = idx.stat(g);
    return st.first === null || idx.coversAlmostAll(st.count) ? null : g;
  };
  // A heading that says "<name> directory" names that directory, a hidden one too (`.claude/`).
  const said = /([\p{L}\p{N}_.-]+)\s+(?:directory|folder)\b/iu.exec(title);
  if (said) {
    const d = resolve(normName(said[1]!));
    if (d) return [d];
  }
  // Generic words ("patterns", "rules") around a directory's name do not hide it.
  const plain = title.split(/\s+/).filter((w) => !GENERAL_RE.test(w)).join(' ');
  // An acronym names the folder of its plural too ("SDK" and `sdks/`).
  const folderNamed = (text: string): string | null => resolve(normName(text)) ?? (ACRONYM_RE.test(text) ? resolve(`${normName(text)}s`) : null);
  if (plain !== title && plain.trim()) {
    const p = folderNamed(plain);
    if (p) return [p];
  }
  const whole = normName(title);
  const w = whole ? folderNamed(title) : null;
  if (w) return [w];
  const words = title
    .split(/[^\p{L}\p{N}_-]+/u)
    .map((x) => x.toLowerCase())
    .filter((x) => /[\p{L}\p{N}]/u.test(x) && !DIR_FILLER.has(x));
  // Two words in a row that are a folder and its subfolder ("Pact V2" and `src/pact/v2/`): that folder.
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [normName(words[i]!), normName(words[i + 1]!)];
    const dirs = idx.dirsNamed(b).filter((d) => normName(d.split('/').at(-2) ?? '') === a);
    if (dirs.length === 1 && depth(dirs[0]!) <= MAX_HEADING_DIR_DEPTH + 1) {
      const g = `${dirs[0]}/**`;
      if (!idx.coversAlmostAll(idx.stat(g).count)) return [g];
    }
  }
  if (words.length < 1 || words.length > 2) return [];
  const out: string[] = [];
  for (const word of words) {
    const g = resolve(normName(word));
    if (!g) return [];
    if (!out.includes(g)) out.push(g);
  }
  return out;
}

function fromHeading(
  title: string,
  label: string,
  hits: number[],
  body: TextScan,
  head: TextScan,
  idx: FileIndex,
): ScopeResult {
  const topics = hits.map((i) => TOPICS[i]!);
  const families = [...new Set(topics.map((t) => t.family))];
  const signal = [`${label} ${quote(title)}`];
  if (families.length > 2) {
    return repoWide([...signal, `no scope: the ${label} names several unrelated topics (${topics.map((t) => t.name).join(', ')})`]);
  }
  for (const i of hits) {
    const s = body.scores.get(i);
    if (s && s.keywords.size) signal.push(keywordEvidence(s));
  }
  const needMentions = topics.some((t) => t.prefersMentioned);
  // The globs and existing folders the section names (`docs/`, `tests/e2e/`): the folder or kind
  // of file it speaks of beats the topic's default globs.
  const mentionedGlobs: Array<{ raw: string; value: string }> = [];
  if (needMentions) {
    for (const m of [...head.mentions, ...body.mentions]) {
      if (m.kind === 'glob' && !EVERYWHERE.has(m.value)) mentionedGlobs.push(m);
      else if (m.kind === 'dir') {
        const g = idx.resolveDir(m.value);
        // A folder counts by its own name (`docs/`, `e2e/`), not by a parent's (`tests/fixtures/`).
        const own = `${m.value.slice(m.value.lastIndexOf('/') + 1)}/`;
        if (g && topics.some((t) => t.prefersMentioned?.test(own)) && !idx.coversAlmostAll(idx.stat(g).count)) mentionedGlobs.push({ raw: m.raw, value: g });
      }
    }
  }
  const isTests = topics.some((t) => t.id === 'tests');
  const globs: string[] = [];
  const mentionedUsed = new Set<string>();
  const useMentioned = (t: Topic): boolean => {
    if (!t.prefersMentioned) return false;
    const ok = mentionedGlobs.filter((m) => t.prefersMentioned!.test(m.value) && (idx.files.length < ONE_FILE_TREE ? idx.matches(m.value) : idx.stat(m.value).count >= 2));
    for (const m of ok) {
      if (!mentionedUsed.has(m.value)) signal.push(`mentions ${quote(m.raw)}`);
      mentionedUsed.add(m.value);
      globs.push(m.value);
    }
    return ok.length > 0;
  };
  for (const t of topics) {
    if (t.id === 'tests') {
      const mentioned = useMentioned(t);
      // Languages in the heading say whose tests; else the test tools the body names; else every family.
      let fams = topics.filter((x) => x.language).map((x) => x.family);
      if (!fams.length) {
        const ti = TOPICS.indexOf(t);
        const kws = [...(head.scores.get(ti)?.keywords.keys() ?? []), ...(body.scores.get(ti)?.keywords.keys() ?? [])];
        fams = [...new Set(kws.map((k) => TEST_HINTS[k]).filter((f): f is string => !!f))];
      }
      // Else the section's own language (fences, tool names, extensions): Rust tests are `.rs` files.
      if (!fams.length) {
        const lang = sectionLanguage(head, body);
        if (lang) {
          fams = [lang];
          signal.push(`the section's language is ${lang}`);
        }
      }
      if (mentioned && !fams.length) continue;
      // A named language with no test files of its own gives no scope (never another language's tests).
      let cands = testGlobs(idx, fams);
      // With no language named, the tests of languages without a naming rule (C++ in `tests/`) count too.
      if (!fams.length) cands = [...cands, ...TEST_DIRS.filter((g) => idx.matches(g))];
      globs.push(...testFolder(idx, cands, signal));
      continue;
    }
    // With tests in the heading, a language only says whose tests ("Python tests" is not every .py file).
    if (isTests && t.language) continue;
    // A heading that names Markdown is about every Markdown file; a docs folder its body names is where some are.
    if (!(t.id === 'docs' && MARKDOWN_RE.test(title)) && useMentioned(t)) continue;
    // A language whose files all but sit in a folder named after it (`src/go/`, `python/`): that folder.
    const home = t.language && !isTests ? languageHome(idx, t) : null;
    if (home) {
      signal.push(home.why);
      globs.push(home.glob);
      continue;
    }
    // Node.js and the frameworks named `<name>.js` (Express.js) run the repository's TypeScript too:
    // in a tree with more TypeScript than JavaScript, a heading that names them and not JavaScript itself is for the TypeScript.
    if (t.id === 'javascript' && !JS_ITSELF_RE.test(title)) {
      if (countByExtension(idx, TYPESCRIPT.globs) > countByExtension(idx, t.globs) && !topics.includes(TYPESCRIPT)) {
        signal.push(`the tree's code for it is TypeScript`);
        globs.push(...TYPESCRIPT.globs);
        continue;
      }
    }
    const variant = t.variants?.find(([re]) => re.test(title));
    // Documentation rules (not Markdown rules) are for the docs folder's pages when that folder holds most of the Markdown.
    const site = t.id === 'docs' && !variant && !MARKDOWN_RE.test(title) ? docsPages(idx, t.globs) : null;
    if (site) {
      signal.push(site.why);
      globs.push(...site.globs);
      continue;
    }
    globs.push(...(variant ? variant[1] : t.globs).flatMap((g) => workflowFiles(idx, g)));
    // Compose files only when the section speaks of Compose: Dockerfile rules are for Dockerfiles.
    if (t.namedGlobs && !variant) {
      const ti = TOPICS.indexOf(t);
      const kws = [...(head.scores.get(ti)?.keywords.keys() ?? []), ...(body.scores.get(ti)?.keywords.keys() ?? [])];
      if (kws.some((k) => t.namedGlobs![0].test(k))) globs.push(...t.namedGlobs[1]);
    }
  }
  return finish(idx, signal, globs, `no file matches what the ${label} names`, 'topic');
}

const CI_TOPIC = TOPICS.findIndex((t) => t.id === 'ci');
const TYPESCRIPT = TOPICS.find((t) => t.id === 'typescript')!;
const WORKFLOW_WORD_RE = /(?<![\p{L}\p{N}_])workflows?(?![\p{L}\p{N}_])/iu;
const WORKFLOW_SYNTAX_RE = /\bactions\/[a-z-]+@|\bruns-on:|`permissions:`|\bjobs:|```ya?ml[^`]*\bon:/;
const MARKDOWN_RE = /\bmarkdown\b|\bmdx\b/i;
/** A heading naming JavaScript itself (not Node.js or a `<name>.js` framework). */
const JS_ITSELF_RE = /(?<![A-Za-z0-9_#+.])(?:javascript|js|ecmascript)(?![A-Za-z0-9_#+])/i;

/**
 * How many files `globs` (each `**\/*.ext`, one extension each, so no file is counted twice) match
 * in the tree, or below `dir`. Counted through the index's per-glob cache: every section naming
 * the topic asks again, and a large tree is scanned once per glob, not once per section.
 */
function countByExtension(idx: FileIndex, globs: readonly string[], dir?: string): number {
  return globs.reduce((n, g) => n + idx.stat(dir ? g.replace(/^\*\*\//, `${dir}/**/`) : g).count, 0);
}

/** The folder named after a language (its name or a fence name: `go/`, `typescript/`, `py/`), at most two levels down, holding nine tenths or more of its files. */
function languageHome(idx: FileIndex, t: Topic): { glob: string; why: string } | null {
  const all = countByExtension(idx, t.globs);
  if (all < 2) return null;
  const names = new Set([t.id, t.name, ...(t.fences ?? [])].map((n) => normName(n)));
  for (const n of names) {
    for (const d of idx.dirsNamed(n)) {
      if (depth(d) > 2 || d.split('/').some((x) => x.startsWith('.'))) continue;
      const k = countByExtension(idx, t.globs, d);
      if (k * 10 >= all * 9 && !idx.coversAlmostAll(idx.stat(`${d}/**`).count)) return { glob: `${d}/**`, why: `${d}/ holds ${k} of the ${all} ${t.name} files` };
    }
  }
  return null;
}

/**
 * The pages of the repository's documentation folder (`docs/`, a docs site's `apps/web-docs/`),
 * when one such folder at most two levels down holds three or more and most, but not all, of the
 * files `globs` (the Markdown kinds) match: documentation rules are about the documentation, not
 * every README.
 */
function docsPages(idx: FileIndex, globs: readonly string[]): { globs: string[]; why: string } | null {
  const all = countByExtension(idx, globs);
  if (!all) return null;
  const dirs = idx.dirsNamedLike(() => true).filter((d) => depth(d) <= 2 && DOCS_DIR_RE.test(d.slice(d.lastIndexOf('/') + 1)) && !d.split('/').some((x) => x.startsWith('.')));
  let best: { dir: string; n: number } | null = null;
  for (const d of dirs) {
    const n = countByExtension(idx, globs, d);
    if (!best || n > best.n) best = { dir: d, n };
  }
  // Three pages or more, more than half of the Markdown, and not all of it (else every Markdown file is the same set, and the simpler glob).
  if (!best || best.n < 3 || best.n * 2 <= all || best.n === all) return null;
  const own = globs.map((g) => g.replace(/^\*\*\//, `${best.dir}/**/`)).filter((g) => idx.matches(g));
  return { globs: own, why: `${best.dir}/ holds ${best.n} of the ${all} documentation files` };
}

const WORKFLOWS = '.github/workflows/**';
const WORKFLOW_FILES = ['.github/workflows/*.yml', '.github/workflows/*.yaml'];

/**
 * GitHub runs only the YAML files directly in `.github/workflows/`: when that folder also holds
 * other files (READMEs, reusable pieces in subfolders), CI rules are for the workflow files only.
 */
function workflowFiles(idx: FileIndex, glob: string): string[] {
  if (glob !== WORKFLOWS) return [glob];
  const own = WORKFLOW_FILES.reduce((n, g) => n + idx.stat(g).count, 0);
  return own > 0 && own < idx.stat(WORKFLOWS).count ? WORKFLOW_FILES : [glob];
}

/** The language family a text clearly is about (keyword and fence scores of language topics), or null. */
function sectionLanguage(...scans: TextScan[]): string | null {
  const byFamily = new Map<string, number>();
  for (const sc of scans) {
    for (const s of sc.scores.values()) {
      const t = TOPICS[s.topic]!;
      if (t.language && TEST_GLOBS[t.family]) byFamily.set(t.family, (byFamily.get(t.family) ?? 0) + s.score);
    }
  }
  const ranked = [...byFamily].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const [top, second] = ranked;
  if (!top || top[1] < W_PRIMARY || (second && second[1] * 2 > top[1])) return null;
  return top[0];
}

function fromBody(body: TextScan, idx: FileIndex): ScopeResult {
  // Only primary and secondary keywords count here: generic words ("tests", "docs") show up in
  // every kind of section and are no evidence of scope on their own.
  const byFamily = new Map<string, number>();
  let total = 0;
  for (const s of body.scores.values()) {
    const fam = TOPICS[s.topic]!.family;
    byFamily.set(fam, (byFamily.get(fam) ?? 0) + s.strong);
    total += s.strong;
  }
  if (total === 0) return repoWide(['no scope: no heading, path or keyword signal']);
  const ranked = [...byFamily].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const [fam, score] = ranked[0]!;
  const members = [...body.scores.values()].filter((s) => TOPICS[s.topic]!.family === fam && s.strong >= W_PRIMARY).sort((a, b) => a.topic - b.topic);
  const distinct = members.reduce((n, s) => n + s.keywords.size, 0);
  if (score < 4 || score < total * 0.7 || distinct < 2 || !members.length) {
    const names = ranked.filter(([, v]) => v >= 2).map(([f]) => f);
    return repoWide([
      names.length > 1 ? `no scope: keywords of several topics (${names.join(', ')})` : 'no scope: no clear keyword signal (body keywords alone need a strong, repeated signal)',
    ]);
  }
  const signal = members.map((s) => `body ${keywordEvidence(s)}`);
  const globs: string[] = [];
  for (const s of members) {
    const t = TOPICS[s.topic]!;
    if (t.id === 'tests') {
      const fams = [...new Set([...s.keywords.keys()].map((k) => TEST_HINTS[k]).filter((f): f is string => !!f))];
      globs.push(...testFolder(idx, testGlobs(idx, fams), signal));
    } else globs.push(...t.globs);
  }
  return finish(idx, signal, globs, 'keywords', 'keywords');
}

/** A scope a person could choose for a section kept repository-wide, with why. */
export interface Candidate {
  applyTo: string[];
  evidence: string[];
}

/**
 * Up to three candidate scopes for a section inference kept repository-wide: the existing paths
 * it names most (each alone), then the files of its language, or, when it has none and its
 * `title` is about how code is written, the repository's languages. For a person to decide, not applied.
 * A `part` of a section kept whole (a project overview's "TypeScript conventions") is offered
 * first the scope its heading alone gives: kept whole for its chapter, not for what it is about.
 * Without `paths`, not the paths it names (for a section written to a path-specific file, which
 * names paths in passing: plan.ts alternativesOf).
 */
export function scopeCandidates(text: string | SectionText, idx: FileIndex, title = '', { part = false, paths = true }: { part?: boolean; paths?: boolean } = {}): Candidate[] {
  // Without the paths it names, the scan inference made is enough (its language shows in its first 8 KiB).
  const sc = typeof text === 'string' ? scan(text) : paths ? text.scan() : text.scanned();
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const own = part ? inferScope({ title, kind: 'heading' }, '', idx) : null;
  if (own?.applyTo) {
    out.push({ applyTo: own.applyTo, evidence: own.evidence });
    own.applyTo.forEach((g) => seen.add(g));
  }
  const found = paths ? pathSignal(idx, sc.mentions, 'mentions') : { globs: [], evidence: [] };
  found.globs.forEach((g, i) => {
    if (!seen.has(g)) out.push({ applyTo: [g], evidence: [found.evidence[i]!] });
    seen.add(g);
  });
  const lang = sectionLanguage(sc);
  const topic = lang ? TOPICS.find((t) => t.language && t.family === lang) : undefined;
  if (topic) {
    const globs = topic.globs.filter((g) => idx.matches(g) && !seen.has(g));
    if (globs.length) out.push({ applyTo: globs, evidence: [`the section's language is ${lang}`] });
  } else {
    // A heading about how code is written that inference keeps everywhere ("Security", "Naming
    // conventions", "Key patterns") with no language of its own: the code the repository is written
    // in, offered for the person to decide (inference applies it only to CODE_RULES_RE headings).
    // Not when the heading names another topic ("CI/CD best practices"): kept everywhere because its
    // text did not bear that topic out, it is no rule for the code either.
    const named = title ? headingWork(title) : null;
    const langs = CODE_CONCERN_RE.test(title) && !CROSS_CUTTING_RE.test(title) && !named?.hits.length && !named?.needsBody.length ? repositoryLanguages(idx).filter((g) => !seen.has(g)) : [];
    if (langs.length) out.push({ applyTo: langs, evidence: [`the heading is about how code is written; the repository's languages`] });
  }
  return out.slice(0, 3);
}

/** Headings about how code is written: errors, performance, security, logging, naming, patterns, conventions (offered as a candidate scope). */
const CODE_CONCERN_RE = /(?<![\p{L}\p{N}_])(?:error handling|errors?|exceptions?|performance|security|logging|naming|clean code|code quality|patterns?|best practices|conventions)(?![\p{L}\p{N}_])/iu;

/**
 * Headings about how code is written that inference scopes to the code: coding standards and
 * guidelines, error handling, performance, logging, code quality, conventions. Not security
 * (secrets and credentials are in configuration too), naming (style, which stays everywhere), bare
 * "errors" ("Common errors" is troubleshooting), "exceptions" ("zero exceptions") or patterns
 * ("Integration patterns" is design more than code): CODE_CONCERN_RE offers those as a candidate.
 * docs/evaluation.md has the figures.
 */
const CODE_RULES_RE = /(?<![\p{L}\p{N}_])(?:coding (?:standards|guidelines|rules|practices)|code (?:standards|guidelines|rules)|error handling|exception handling|performance|logging|clean code|code quality|best practices|conventions)(?![\p{L}\p{N}_])/iu;
/** Rules that hold for every file whatever else the heading says ("Security best practices"). */
const ALWAYS_ON_RE = /(?<![\p{L}\p{N}_])(?:security|secrets?|credentials?|naming)(?![\p{L}\p{N}_])/iu;

/**
 * Per topic, the globs of a language topic that no other language has and a topic of another kind
 * does: the markup a framework is known by (Angular's `**` + `/*.html`, which is HTML's too). Empty for most.
 */
const BORROWED_MARKUP = new Map<Topic, string[]>(
  TOPICS.map((t) => [t, t.language ? t.globs.filter((g) => !TOPICS.some((u) => u !== t && u.language && u.globs.includes(g)) && TOPICS.some((u) => !u.language && u.globs.includes(g))) : []]),
);

/**
 * The programming languages that make up a tenth or more of the tree's files, most files first:
 * their own globs (`**` + `/*.py`). Not a framework known by borrowed markup: HTML files do not
 * show a repository is written with Angular.
 */
function repositoryLanguages(idx: FileIndex): string[] {
  const langs: Array<{ globs: string[]; n: number }> = [];
  for (const t of TOPICS) {
    if (!t.language || COMMAND_FAMILIES.has(t.family) || BORROWED_MARKUP.get(t)!.length) continue;
    const globs = t.globs.filter((g) => /^\*\*\/\*\.\w+$/.test(g) && idx.matches(g));
    const n = globs.reduce((k, g) => k + idx.stat(g).count, 0);
    if (n > 0 && n >= idx.files.length * 0.1) langs.push({ globs, n });
  }
  return [...new Set(langs.sort((a, b) => b.n - a.n).flatMap((l) => l.globs))];
}

const TEST_FILE_GLOBS = new Set([...Object.values(TEST_GLOBS).flat(), ...TEST_DIRS]);

/**
 * The name of what a scope's globs are, for the file that holds it: the taxonomy topic whose
 * globs hold them all (the narrowest), `Testing` for test files, or the folder (or two) they
 * cover (`src/api/**` is `api`). Null when they are none of these (a mix of folders and kinds).
 */
export function topicName(globs: readonly string[]): string | null {
  return topicOf(globs)?.name ?? null;
}

/**
 * topicName, and whether the name is a topic of the taxonomy (`topic`: scopes of one topic share
 * one file, their globs joined) or a folder's (`folder`: two folders of one name are two scopes).
 */
export function topicOf(globs: readonly string[]): { name: string; kind: 'topic' | 'folder' } | null {
  if (!globs.length) return null;
  const dirs = globs.map((g) => /^(?:\*\*\/)?([^*?[\]{}()!]+)\/\*\*$/.exec(g)?.[1]);
  const testDir = (d: string | undefined): boolean => d !== undefined && TEST_FOLDER_RE.test(d.slice(d.lastIndexOf('/') + 1));
  if (globs.every((g, i) => TEST_FILE_GLOBS.has(g) || testDir(dirs[i]))) return { name: 'Testing', kind: 'topic' };
  let best: Topic | null = null;
  const named = globs.map((g) => (WORKFLOW_FILES.includes(g) ? WORKFLOWS : g));
  for (const t of TOPICS) {
    if (!t.globs.length || !named.every((g) => t.globs.includes(g)) || (best && t.globs.length >= best.globs.length)) continue;
    // A framework known by markup it shares with a plain topic (Angular: TypeScript and HTML) names
    // only globs that hold both its code and its markup: `**` + `/*.ts` alone is TypeScript, `**` + `/*.html` alone HTML.
    const markup = BORROWED_MARKUP.get(t)!;
    if (markup.length && !(named.some((g) => markup.includes(g)) && named.some((g) => !markup.includes(g)))) continue;
    best = t;
  }
  if (best) return { name: best.name, kind: 'topic' };
  if (dirs.length <= 2 && dirs.every((d) => d !== undefined)) return { name: [...new Set(dirs.map((d) => d!.slice(d!.lastIndexOf('/') + 1)))].join(' '), kind: 'folder' };
  return null;
}
