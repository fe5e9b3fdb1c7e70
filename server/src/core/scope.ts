/**
 * Section -> applyTo globs, with the evidence that led there.
 *
 * Signals, strongest first (EXAMPLE.md "Where scope evidence comes from"):
 * 1. the heading names a language, framework or topic of the taxonomy below;
 * 2. the section names a glob (`*.test.ts`) or a directory (`azure_api/`, "files under crates/")
 *    that exists in the workspace;
 * 3. body keywords, only when one family clearly dominates and repeats.
 * A glob is kept only if it matches at least one workspace file (picomatch, `dot: true`).
 * Anything general (communication, principles, overview, the preamble) or spread over
 * unrelated languages stays repository-wide: `applyTo: null`.
 */
import picomatch from 'picomatch';
import type { ScopeResult } from './types.js';

/** Only the first this-many characters of a section are scanned (a 10 MB section costs the same as a 64 KB one). */
export const SCAN_CAP = 64 * 1024;
/** When the heading names the topic, the body only adds evidence and hints: its start is enough. */
const HIT_SCAN_CAP = 8 * 1024;

export interface Topic {
  id: string;
  /** Display name, also the title of proposed topic sections. */
  name: string;
  /** Related topics share a family (TypeScript and React are both `js`). */
  family: string;
  /** Programming language or framework (as opposed to a concern such as tests or CI). */
  language: boolean;
  /** Heading match: strong evidence on its own. */
  heading: RegExp;
  /** Heading match that counts only when the body has one of this topic's keywords too. */
  headingNeedsBody?: RegExp;
  /** Generic nouns ("tests", "pipelines", "database"): a heading match that general words outweigh. */
  headingWeak?: RegExp;
  /** Body keywords (lower case; two words allowed) by weight. */
  primary: readonly string[];
  secondary?: readonly string[];
  weak?: readonly string[];
  /** Fence info strings (```ts) that count as a body signal. */
  fences?: readonly string[];
  globs: readonly string[];
  /** Globs the section itself mentions replace the defaults when they match this (tests: `*.test.ts`). */
  prefersMentioned?: RegExp;
  /** A heading that names a variant (the CI system) narrows the globs to that variant's. */
  variants?: ReadonlyArray<readonly [RegExp, readonly string[]]>;
}

/** Word-bounded, case-insensitive alternation (`#`, `+` and `.` count as part of a word: C#, C++, .NET). */
function words(...alts: string[]): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_#+])(?:${alts.join('|')})(?![A-Za-z0-9_#+])`, 'i');
}

const W_PRIMARY = 2;
const W_SECONDARY = 1;
const W_WEAK = 0.5;

export const TOPICS: readonly Topic[] = [
  {
    id: 'typescript', name: 'TypeScript', family: 'js', language: true,
    heading: words('typescript', 'ts', 'tsx', 'tsconfig'),
    primary: ['typescript'], secondary: ['tsconfig', 'tsconfig.json', 'tsc', '.ts', '.tsx', 'tsx', 'type-check', 'typecheck'],
    fences: ['ts', 'typescript', 'tsx'],
    globs: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'],
  },
  {
    id: 'javascript', name: 'JavaScript', family: 'js', language: true,
    heading: words('javascript', 'js', 'node', 'node\\.js', 'nodejs', 'ecmascript'),
    primary: ['javascript', 'node.js', 'nodejs'], secondary: ['.js', '.mjs', '.cjs', 'commonjs', 'ecmascript'],
    fences: ['js', 'javascript', 'jsx', 'mjs', 'cjs'],
    globs: ['**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'],
  },
  {
    id: 'react', name: 'React', family: 'js', language: true,
    heading: words('react', 'react native', 'jsx', 'next\\.js', 'nextjs', 'remix'),
    primary: ['react', 'next.js', 'nextjs', 'jsx'], secondary: ['usestate', 'useeffect', 'usememo', 'usecallback', 'react-dom', 'tsx'],
    weak: ['hooks', 'components'],
    fences: ['jsx', 'tsx'],
    globs: ['**/*.tsx', '**/*.jsx'],
  },
  {
    id: 'vue', name: 'Vue', family: 'js', language: true,
    heading: words('vue', 'vue\\.js', 'vuejs', 'nuxt'),
    primary: ['vue', 'vue.js', 'vuejs', 'nuxt'], secondary: ['pinia', '.vue'],
    fences: ['vue'],
    globs: ['**/*.vue'],
  },
  {
    id: 'angular', name: 'Angular', family: 'js', language: true,
    heading: words('angular'),
    primary: ['angular'], secondary: ['ngmodule', 'rxjs'],
    globs: ['**/*.ts', '**/*.html'],
  },
  {
    id: 'svelte', name: 'Svelte', family: 'js', language: true,
    heading: words('svelte', 'sveltekit'),
    primary: ['svelte', 'sveltekit'], secondary: ['.svelte'],
    fences: ['svelte'],
    globs: ['**/*.svelte'],
  },
  {
    id: 'python', name: 'Python', family: 'py', language: true,
    heading: words('python', 'py', 'django', 'flask', 'fastapi', 'pydantic', 'jupyter'),
    primary: ['python', 'django', 'flask', 'fastapi'],
    secondary: ['pip', 'poetry', 'ruff', 'mypy', 'pyproject.toml', 'requirements.txt', 'venv', 'virtualenv', 'pydantic', 'numpy', 'pandas', '.py', 'pylint', 'pyright', '__init__.py'],
    fences: ['python', 'py', 'python3'],
    globs: ['**/*.py'],
  },
  {
    id: 'go', name: 'Go', family: 'go', language: true,
    heading: /(?<![A-Za-z0-9_#+])(?:Go|[Gg]olang)(?![A-Za-z0-9_#+])/,
    primary: ['golang', 'go.mod', 'goroutine', 'goroutines', 'gofmt'], secondary: ['go.sum', '.go', 'go test', 'go build', 'go vet', 'go run'],
    fences: ['go', 'golang'],
    globs: ['**/*.go'],
  },
  {
    id: 'rust', name: 'Rust', family: 'rust', language: true,
    heading: words('rust', 'cargo'),
    primary: ['rust', 'cargo', 'cargo.toml'], secondary: ['clippy', 'rustfmt', '.rs', 'crate', 'crates', 'tokio', 'serde'],
    fences: ['rust', 'rs'],
    globs: ['**/*.rs'],
  },
  {
    id: 'java', name: 'Java', family: 'jvm', language: true,
    heading: words('java', 'spring', 'spring boot', 'maven', 'gradle', 'jdk'),
    primary: ['java', 'spring', 'maven'], secondary: ['gradle', 'pom.xml', '.java', 'jdk', 'jvm', 'lombok'],
    fences: ['java'],
    globs: ['**/*.java'],
  },
  {
    id: 'kotlin', name: 'Kotlin', family: 'jvm', language: true,
    heading: words('kotlin'),
    primary: ['kotlin'], secondary: ['.kt', '.kts', 'ktlint'],
    fences: ['kotlin', 'kt'],
    globs: ['**/*.kt', '**/*.kts'],
  },
  {
    id: 'scala', name: 'Scala', family: 'jvm', language: true,
    heading: words('scala', 'sbt'),
    primary: ['scala'], secondary: ['sbt', '.scala'],
    fences: ['scala'],
    globs: ['**/*.scala', '**/*.sbt'],
  },
  {
    id: 'csharp', name: 'C#', family: 'dotnet', language: true,
    heading: words('c#', 'csharp', '\\.net', 'dotnet', 'asp\\.net', 'asp\\.net core', 'ef core', 'entity framework', 'wpf', 'maui'),
    primary: ['c#', 'csharp', '.net', 'dotnet', 'asp.net'], secondary: ['nuget', 'csproj', '.csproj', '.cs', 'linq'],
    fences: ['cs', 'csharp', 'c#'],
    globs: ['**/*.cs'],
  },
  {
    id: 'blazor', name: 'Blazor', family: 'dotnet', language: true,
    heading: words('blazor', 'razor', 'razor pages', 'cshtml'),
    primary: ['blazor', 'razor'], secondary: ['.razor', '.cshtml'],
    fences: ['razor', 'cshtml'],
    globs: ['**/*.razor', '**/*.razor.cs', '**/*.razor.css', '**/*.cshtml', '**/*.cshtml.cs'],
  },
  {
    id: 'cpp', name: 'C/C++', family: 'c', language: true,
    heading: /(?<![A-Za-z0-9_#+])(?:c\+\+|cpp|c\/c\+\+|cmake)(?![A-Za-z0-9_#+])|^\s*c\s*$|(?<![A-Za-z0-9_#+/])c (?:code|language|sources?)\b/i,
    primary: ['c++', 'cpp', 'cmake'], secondary: ['cmakelists.txt', '.cpp', '.hpp', '.cc', '.h'],
    fences: ['c', 'cpp', 'c++', 'cc', 'h', 'hpp'],
    globs: ['**/*.c', '**/*.h', '**/*.cpp', '**/*.hpp', '**/*.cc', '**/*.cxx'],
  },
  {
    id: 'ruby', name: 'Ruby', family: 'ruby', language: true,
    heading: words('ruby', 'rails', 'ruby on rails'),
    primary: ['ruby', 'rails', 'gemfile'], secondary: ['.rb', 'rake', 'bundler', 'erb', 'rubocop'],
    fences: ['ruby', 'rb'],
    globs: ['**/*.rb', '**/*.erb'],
  },
  {
    id: 'php', name: 'PHP', family: 'php', language: true,
    heading: words('php', 'laravel', 'symfony', 'wordpress'),
    primary: ['php', 'laravel', 'symfony', 'wordpress'], secondary: ['composer.json', '.php', 'artisan'],
    fences: ['php'],
    globs: ['**/*.php'],
  },
  {
    id: 'swift', name: 'Swift', family: 'swift', language: true,
    heading: words('swift', 'swiftui'),
    primary: ['swift', 'swiftui'], secondary: ['xcode', '.swift', 'cocoapods'],
    fences: ['swift'],
    globs: ['**/*.swift'],
  },
  {
    id: 'dart', name: 'Dart', family: 'dart', language: true,
    heading: words('dart', 'flutter'),
    primary: ['dart', 'flutter'], secondary: ['pubspec.yaml', '.dart'],
    fences: ['dart'],
    globs: ['**/*.dart'],
  },
  {
    id: 'elixir', name: 'Elixir', family: 'elixir', language: true,
    heading: words('elixir', 'phoenix'),
    primary: ['elixir'], secondary: ['mix.exs', '.ex', '.exs'],
    fences: ['elixir', 'ex'],
    globs: ['**/*.ex', '**/*.exs'],
  },
  {
    id: 'lua', name: 'Lua', family: 'lua', language: true,
    heading: words('lua'),
    primary: ['lua'], secondary: ['.lua'],
    fences: ['lua'],
    globs: ['**/*.lua'],
  },
  {
    id: 'r', name: 'R', family: 'r', language: true,
    heading: /^\s*r\s*$|(?<![A-Za-z0-9_#+])(?:r (?:code|language|programming|scripts?|packages?)|rmarkdown|tidyverse|quarto)(?![A-Za-z0-9_#+])/i,
    primary: ['tidyverse', 'ggplot2', 'rmarkdown'], secondary: ['.rmd', 'cran', 'dplyr'],
    fences: ['r'],
    globs: ['**/*.R', '**/*.r', '**/*.Rmd', '**/*.qmd'],
  },
  {
    id: 'shell', name: 'Shell', family: 'shell', language: true,
    heading: words('shell', 'bash', 'zsh', 'shell scripts?', 'sh'),
    primary: ['bash', 'shellcheck', 'zsh', 'shell script', 'shell scripts'], secondary: ['.sh'],
    fences: ['sh', 'bash', 'shell', 'zsh'],
    globs: ['**/*.sh', '**/*.bash', '**/*.zsh'],
  },
  {
    id: 'powershell', name: 'PowerShell', family: 'powershell', language: true,
    heading: words('powershell', 'pwsh', 'ps1'),
    primary: ['powershell', 'pwsh'], secondary: ['.ps1', '.psm1', 'cmdlet', 'cmdlets'],
    fences: ['powershell', 'pwsh', 'ps1'],
    globs: ['**/*.ps1', '**/*.psm1', '**/*.psd1'],
  },
  {
    id: 'sql', name: 'SQL', family: 'sql', language: false,
    heading: words('sql', 't-sql', 'postgres', 'postgresql', 'mysql', 'sqlite', 'plpgsql'),
    headingWeak: words('databases?', 'database migrations?'),
    primary: ['sql', 'postgres', 'postgresql', 'mysql', 'sqlite', 't-sql'], secondary: ['.sql', 'plpgsql'],
    weak: ['migrations', 'queries'],
    fences: ['sql', 'pgsql', 'plpgsql'],
    globs: ['**/*.sql'],
  },
  {
    id: 'css', name: 'CSS', family: 'css', language: false,
    heading: words('css', 'scss', 'sass', 'less', 'stylesheets?', 'tailwind', 'tailwind css', 'styled-components'),
    headingWeak: words('styling'),
    primary: ['css', 'scss', 'sass', 'tailwind', 'stylesheet', 'stylesheets'], secondary: ['.css', '.scss', 'styled-components'],
    fences: ['css', 'scss', 'sass', 'less'],
    globs: ['**/*.css', '**/*.scss', '**/*.sass', '**/*.less'],
  },
  {
    id: 'html', name: 'HTML', family: 'html', language: false,
    heading: words('html'),
    primary: ['html'], secondary: ['.html'],
    fences: ['html'],
    globs: ['**/*.html', '**/*.htm'],
  },
  {
    id: 'tests', name: 'Testing', family: 'tests', language: false,
    heading: words('vitest', 'jest', 'pytest', 'mocha', 'junit', 'xunit', 'nunit', 'rspec', 'playwright', 'cypress', 'e2e', 'end-to-end', 'tdd'),
    headingWeak: words('tests?', 'testing', 'unit tests?', 'spec files?', 'test coverage'),
    primary: ['vitest', 'jest', 'pytest', 'mocha', 'junit', 'xunit', 'nunit', 'rspec', 'playwright', 'cypress', 'phpunit', 'unit test', 'unit tests', 'test file', 'test files', 'test suite', 'test case', 'test cases', 'integration tests', 'e2e', 'tdd'],
    weak: ['test', 'tests', 'testing', 'mock', 'mocks', 'coverage', 'fixtures', 'assertions'],
    globs: [], // chosen per family, see TEST_GLOBS
    prefersMentioned: /test|spec|__tests__|e2e/i,
  },
  {
    id: 'docs', name: 'Documentation', family: 'docs', language: false,
    heading: words('markdown', 'readme', 'mdx', 'changelog', 'docusaurus', 'mkdocs'),
    headingNeedsBody: words('docs', 'documentation', 'technical writing'),
    primary: ['markdown', 'readme', 'readme.md', 'mdx', 'docusaurus', 'mkdocs', 'changelog', 'commonmark'], secondary: ['.md', '.mdx'],
    weak: ['docs', 'documentation'],
    fences: ['markdown', 'md'],
    globs: ['**/*.md', '**/*.mdx'],
    prefersMentioned: /\.mdx?$|\.mdx?\}?$|(^|\/)docs?\//i,
  },
  {
    id: 'ci', name: 'CI', family: 'ci', language: false,
    heading: words('ci/cd', 'cicd', 'continuous integration', 'continuous delivery', 'continuous deployment', 'github actions', 'actions workflows?', 'github workflows?', 'workflow files?', 'gitlab ci', 'azure pipelines', 'azure devops pipelines?', 'build pipelines?', 'ci pipelines?', 'jenkins', 'circleci'),
    headingWeak: words('ci', 'pipelines'),
    primary: ['github actions', 'workflow files', '.github/workflows', 'ci/cd', 'gitlab-ci', 'jenkins', 'circleci', 'runs-on'],
    secondary: ['workflows', 'ci', 'actions/checkout', 'pipelines'],
    weak: ['pipeline', 'workflow'],
    globs: ['.github/workflows/**', '**/.gitlab-ci.yml', '**/azure-pipelines*.yml', '.circleci/**', '**/Jenkinsfile', '.buildkite/**'],
    prefersMentioned: /workflow|pipeline|\.github\/|gitlab|circleci|jenkins/i,
    variants: [
      [/github/i, ['.github/workflows/**']],
      [/gitlab/i, ['**/.gitlab-ci.yml']],
      [/azure/i, ['**/azure-pipelines*.yml', '**/*.pipeline.yml']],
      [/circle ?ci/i, ['.circleci/**']],
      [/jenkins/i, ['**/Jenkinsfile']],
      [/buildkite/i, ['.buildkite/**']],
    ],
  },
  {
    id: 'docker', name: 'Docker', family: 'containers', language: false,
    heading: words('docker', 'dockerfiles?', 'docker compose', 'podman'),
    headingWeak: words('containers?'),
    primary: ['docker', 'dockerfile', 'docker-compose', 'docker compose', 'podman'], secondary: ['container', 'containers', 'compose.yaml', '.dockerignore'],
    fences: ['dockerfile', 'docker'],
    globs: ['**/Dockerfile', '**/Dockerfile.*', '**/*.dockerfile', '**/docker-compose*.yml', '**/docker-compose*.yaml', '**/compose.yml', '**/compose.yaml'],
  },
  {
    id: 'terraform', name: 'Terraform', family: 'iac', language: false,
    heading: words('terraform', 'opentofu', 'hcl'),
    primary: ['terraform', 'opentofu'], secondary: ['.tf', '.tfvars', 'hcl', 'tflint'],
    fences: ['terraform', 'hcl', 'tf'],
    globs: ['**/*.tf', '**/*.tfvars'],
  },
  {
    id: 'bicep', name: 'Bicep', family: 'iac', language: false,
    heading: words('bicep', 'arm templates?'),
    primary: ['bicep'], secondary: ['.bicep', '.bicepparam'],
    fences: ['bicep'],
    globs: ['**/*.bicep', '**/*.bicepparam'],
  },
  {
    id: 'kubernetes', name: 'Kubernetes', family: 'k8s', language: false,
    heading: words('kubernetes', 'k8s', 'helm', 'kustomize'),
    primary: ['kubernetes', 'k8s', 'helm', 'kubectl', 'kustomize'], secondary: ['chart.yaml', 'kustomization.yaml'],
    globs: ['**/k8s/**', '**/kubernetes/**', '**/charts/**', '**/helm/**', '**/manifests/**', '**/kustomization.yaml'],
  },
  {
    id: 'infra', name: 'Infrastructure', family: 'iac', language: false,
    heading: words('infrastructure as code', 'iac'),
    headingWeak: words('infrastructure', 'infra'),
    primary: ['infrastructure as code', 'iac'], secondary: ['infrastructure'],
    globs: ['infra/**', 'infrastructure/**', '**/*.tf', '**/*.bicep'],
  },
  {
    id: 'copilot', name: 'Copilot customization', family: 'copilot', language: false,
    heading: words('copilot customi[sz]ation', 'instructions? files?', '\\.instructions\\.md', 'prompt files?', '\\.prompt\\.md', 'custom agents?', 'agent skills?', 'skill files?'),
    primary: ['.instructions.md', '.prompt.md', '.agent.md', 'skill.md', '.chatmode.md', 'prompt files', 'instruction files'],
    globs: ['**/*.instructions.md', '**/*.prompt.md', '**/*.agent.md', '**/*.chatmode.md', '**/SKILL.md'],
  },
  {
    id: 'make', name: 'Makefile', family: 'build', language: false,
    heading: words('makefiles?', 'gnu make'),
    primary: ['makefile', 'makefiles'], secondary: ['.mk'],
    fences: ['make', 'makefile'],
    globs: ['**/Makefile', '**/makefile', '**/GNUmakefile', '**/*.mk'],
  },
  {
    id: 'proto', name: 'Protocol Buffers', family: 'proto', language: false,
    heading: words('protobuf', 'protocol buffers', 'grpc', '\\.proto'),
    primary: ['protobuf', 'grpc', 'protoc'], secondary: ['.proto', 'buf.yaml'],
    fences: ['proto', 'protobuf'],
    globs: ['**/*.proto'],
  },
  {
    id: 'graphql', name: 'GraphQL', family: 'graphql', language: false,
    heading: words('graphql'),
    primary: ['graphql'], secondary: ['.graphql', '.gql'],
    fences: ['graphql', 'gql'],
    globs: ['**/*.graphql', '**/*.gql'],
  },
  {
    id: 'notebooks', name: 'Notebooks', family: 'notebooks', language: false,
    heading: words('jupyter', 'notebooks?', 'ipynb'),
    primary: ['jupyter', 'ipynb', '.ipynb'], weak: ['notebook', 'notebooks'],
    globs: ['**/*.ipynb'],
  },
];

/** Test file patterns per language family, the way people write them (see corpus/applyto-survey.tsv). */
const TEST_GLOBS: Readonly<Record<string, readonly string[]>> = {
  js: ['**/*.test.ts', '**/*.test.tsx', '**/*.spec.ts', '**/*.spec.tsx', '**/*.test.js', '**/*.test.jsx', '**/*.spec.js', '**/*.test.mjs'],
  py: ['**/test_*.py', '**/*_test.py', '**/conftest.py'],
  go: ['**/*_test.go'],
  jvm: ['**/*Test.java', '**/*Tests.java', '**/*IT.java', '**/*Test.kt'],
  dotnet: ['**/*Tests.cs', '**/*Test.cs'],
  ruby: ['**/*_spec.rb', '**/*_test.rb'],
  php: ['**/*Test.php'],
  swift: ['**/*Tests.swift'],
  dart: ['**/*_test.dart'],
  rust: ['tests/**/*.rs'],
};
const TEST_DIRS: readonly string[] = ['tests/**', 'test/**', '__tests__/**', 'spec/**', 'e2e/**'];
/** Keywords that say which language's tests a section means. */
const TEST_HINTS: Readonly<Record<string, string>> = {
  vitest: 'js', jest: 'js', mocha: 'js', playwright: 'js', cypress: 'js', pytest: 'py', junit: 'jvm', xunit: 'dotnet', nunit: 'dotnet', rspec: 'ruby', phpunit: 'php', 'go test': 'go', 'cargo test': 'rust',
};

/**
 * Headings that are about how to work rather than where: they stay repository-wide unless the
 * heading also names a language or tool ("General TypeScript rules" is still TypeScript).
 * GENERAL_CORE words also outweigh a generic topic noun: "Build & test commands" is about
 * running things, not about test files; GENERAL_SUFFIX words do not ("Testing guidelines").
 */
const GENERAL_CORE_RE = words(
  'general', 'overview', 'introduction', 'intro', 'about', 'communication', 'tone', 'style guide', 'principles?', 'philosophy', 'persona', 'role',
  'behaviou?r', 'responses?', 'answers?', 'conversation', 'summary', 'context', 'project', 'repository', 'repo', 'architecture', 'structure',
  'layout', 'organi[sz]ation', 'getting started', 'setup', 'set up', 'commands', 'workflows?', 'how to', 'running', 'local development',
  'environment', 'variables', 'build', 'builds', 'building', 'lint', 'linting', 'git', 'commits?', 'pull requests?', 'prs?', 'code review',
  'reviews?', 'security', 'performance', 'naming', 'formatting', 'errors?', 'error handling', 'logging', 'dependencies', 'license', 'contributing',
  'faq', 'glossary', 'terminology', 'tasks?', 'language', 'code style', 'quality', 'scope', 'basics', 'misc', 'miscellaneous', 'other',
);
const GENERAL_SUFFIX_RE = words(
  'rules', 'guidelines', 'conventions', 'best practices', 'standards', 'coding standards', 'checklist', 'notes?', 'instructions', 'tips',
  'patterns?', 'recommendations', 'important', 'critical', 'must', 'always', 'never', 'do not', "don'?t",
);
const GENERAL_RE = { test: (title: string): boolean => GENERAL_CORE_RE.test(title) || GENERAL_SUFFIX_RE.test(title) };

const EVERYWHERE = new Set(['*', '**', '**/*', '**/**', '*/**', '**/*.*', './**']);

// ---------------------------------------------------------------- keyword dictionary

interface Hit {
  topic: number;
  weight: number;
}
const DICT = new Map<string, Hit[]>();
function addKw(kw: string, topic: number, weight: number): void {
  const list = DICT.get(kw) ?? [];
  if (!list.some((h) => h.topic === topic)) list.push({ topic, weight });
  DICT.set(kw, list);
}
TOPICS.forEach((t, i) => {
  for (const k of t.primary) addKw(k, i, W_PRIMARY);
  for (const k of t.secondary ?? []) addKw(k, i, W_SECONDARY);
  for (const k of t.weak ?? []) addKw(k, i, W_WEAK);
});
const FENCE_DICT = new Map<string, number[]>();
TOPICS.forEach((t, i) => {
  for (const f of t.fences ?? []) FENCE_DICT.set(f, [...(FENCE_DICT.get(f) ?? []), i]);
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Every keyword in one regular expression, run over the lower-cased text. The alternation is
 * written as a trie (`t(?:ypescript|sconfig)`) so that V8 decides on each character once, and
 * anchored on `\b` so that only word starts are tried; keywords that start with a dot (`.py`)
 * get a second, dot-gated expression. Together several times faster than splitting the text
 * into words. Two-word keywords match any run of white space.
 */
const WORD_KEYWORD_RE = new RegExp(`\\b${trieSource([...DICT.keys()].filter((k) => !k.startsWith('.')))}(?![a-z0-9_#+])`, 'g');
const DOT_KEYWORD_RE = new RegExp(`(?<![a-z0-9_#+.\\-])\\.${trieSource([...DICT.keys()].filter((k) => k.startsWith('.')).map((k) => k.slice(1)))}(?![a-z0-9_#+])`, 'g');

function trieSource(keywords: readonly string[]): string {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const k of keywords) {
    let n = root;
    for (const ch of k) {
      let c = n.next.get(ch);
      if (!c) {
        c = { end: false, next: new Map() };
        n.next.set(ch, c);
      }
      n = c;
    }
    n.end = true;
  }
  const emit = (n: Node): string => {
    const branches = [...n.next.keys()].sort(cmpStr).map((ch) => (ch === ' ' ? '\\s+' : escapeRe(ch)) + emit(n.next.get(ch)!));
    if (!branches.length) return '';
    const body = branches.length === 1 ? branches[0]! : `(?:${branches.join('|')})`;
    // Greedy: the longest keyword that ends on a word boundary wins.
    return n.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface TopicScore {
  topic: number;
  score: number;
  /** The part of `score` from primary and secondary keywords (generic words such as "tests" left out). */
  strong: number;
  /** keyword -> occurrences (capped), in first-seen order. */
  keywords: Map<string, number>;
}

interface Mention {
  raw: string;
  kind: 'glob' | 'dir';
  /** Normalised: glob relative to the root, or a directory path without trailing slash. */
  value: string;
}

interface TextScan {
  scores: Map<number, TopicScore>;
  /** Paths and globs named outside code fences (computed on first use). */
  readonly mentions: Mention[];
}

/** Occurrences of one keyword counted at most this often: repetition of one word is not a broad signal. */
const KW_CAP = 3;

function addScore(scores: Map<number, TopicScore>, topic: number, kw: string, weight: number): void {
  let s = scores.get(topic);
  if (!s) {
    s = { topic, score: 0, strong: 0, keywords: new Map() };
    scores.set(topic, s);
  }
  const n = s.keywords.get(kw) ?? 0;
  if (n >= KW_CAP) return;
  s.keywords.set(kw, n + 1);
  s.score += weight;
  if (weight >= W_SECONDARY) s.strong += weight;
}

/**
 * Call `cb` for every keyword occurrence in `lower`, in order of position. `lower` is lower-cased
 * text; ASCII-compatible text such as a latin1 decoding of UTF-8 bytes works too (every keyword
 * is ASCII), which makes string offsets byte offsets.
 */
export function forEachKeyword(lower: string, cb: (index: number, keyword: string) => void): void {
  // Dotted keywords (`.py`) are rare: collect them first, then merge them into the word pass.
  const dotAt: number[] = [];
  const dotKw: string[] = [];
  DOT_KEYWORD_RE.lastIndex = 0;
  for (let m = DOT_KEYWORD_RE.exec(lower); m; m = DOT_KEYWORD_RE.exec(lower)) {
    dotAt.push(m.index);
    dotKw.push(m[0]);
  }
  let d = 0;
  WORD_KEYWORD_RE.lastIndex = 0;
  for (let m = WORD_KEYWORD_RE.exec(lower); m; m = WORD_KEYWORD_RE.exec(lower)) {
    // `\b` lets `#+.-` through; a keyword after them is part of a longer name (`my-react`, `x.go`).
    if (m.index > 0) {
      const prev = lower.charCodeAt(m.index - 1);
      if (prev === 35 || prev === 43 || prev === 46 || prev === 45) continue;
    }
    while (d < dotAt.length && dotAt[d]! < m.index) cb(dotAt[d]!, dotKw[d++]!);
    // A match that is a keyword as written needs no white-space folding (keywords have single spaces).
    const kw = m[0];
    cb(m.index, DICT.has(kw) ? kw : kw.replace(/\s+/g, ' '));
  }
  while (d < dotAt.length) cb(dotAt[d]!, dotKw[d++]!);
}

/**
 * Keyword scores of one block at a time, without allocating per block: the topic tallies are
 * pooled and reset between blocks (topics.ts classifies hundreds of thousands of blocks).
 */
export class BlockScorer {
  private readonly scores = new Map<number, TopicScore>();
  private readonly pool = new Map<number, TopicScore>();
  add(keyword: string): void {
    const hits = DICT.get(keyword);
    if (hits) for (const h of hits) this.bump(h.topic, keyword, h.weight);
  }
  addFence(info: string): void {
    for (const t of FENCE_DICT.get(info) ?? []) this.bump(t, `\`\`\`${info}`, W_SECONDARY);
  }
  private bump(topic: number, kw: string, weight: number): void {
    let s = this.scores.get(topic);
    if (!s) {
      s = this.pool.get(topic);
      if (s) {
        s.score = 0;
        s.strong = 0;
        s.keywords.clear();
      } else {
        s = { topic, score: 0, strong: 0, keywords: new Map() };
        this.pool.set(topic, s);
      }
      this.scores.set(topic, s);
    }
    const n = s.keywords.get(kw) ?? 0;
    if (n >= KW_CAP) return;
    s.keywords.set(kw, n + 1);
    s.score += weight;
    if (weight >= W_SECONDARY) s.strong += weight;
  }
  get empty(): boolean {
    return this.scores.size === 0;
  }
  /** The block's topic (see decideBlock), then reset for the next block. */
  decide(length: number): Topic | null {
    const t = this.scores.size ? decideBlock(this.scores, length) : null;
    this.scores.clear();
    return t;
  }
  reset(): void {
    this.scores.clear();
  }
}

/** Add one occurrence of `keyword` (as reported by forEachKeyword) to `scores`. */
export function scoreKeyword(scores: Map<number, TopicScore>, keyword: string): void {
  const hits = DICT.get(keyword);
  if (hits) for (const h of hits) addScore(scores, h.topic, keyword, h.weight);
}

/** Add a fence info string (```ts) to `scores`. */
export function scoreFenceInfo(scores: Map<number, TopicScore>, info: string): void {
  for (const t of FENCE_DICT.get(info) ?? []) addScore(scores, t, `\`\`\`${info}`, W_SECONDARY);
}

function scoreKeywords(prose: string, scores: Map<number, TopicScore>): void {
  forEachKeyword(prose.toLowerCase(), (_i, kw) => scoreKeyword(scores, kw));
}

/** Lines that open or close a fence (``` or ~~~ after at most 3 spaces). */
const FENCE_LINE_RE = /^ {0,3}(`{3,}|~{3,})([^\r\n]*)$/gm;

/** Drop fenced code (its content says little about scope; its info string does). */
function proseOf(text: string, scores: Map<number, TopicScore> | null): string {
  if (!text.includes('```') && !text.includes('~~~')) return text;
  let out = '';
  let pos = 0;
  let open: { ch: string; len: number; start: number } | null = null;
  FENCE_LINE_RE.lastIndex = 0;
  for (let m = FENCE_LINE_RE.exec(text); m; m = FENCE_LINE_RE.exec(text)) {
    const marker = m[1]!;
    const rest = m[2] ?? '';
    if (open) {
      if (marker[0] === open.ch && marker.length >= open.len && rest.trim() === '') {
        open = null;
        pos = m.index + m[0].length;
      }
      continue;
    }
    if (marker[0] === '`' && rest.includes('`')) continue; // not a fence: an inline code span
    out += text.slice(pos, m.index);
    open = { ch: marker[0]!, len: marker.length, start: m.index };
    const info = rest.trim().split(/[\s{]/, 1)[0]!.toLowerCase();
    if (scores && info) scoreFenceInfo(scores, info);
  }
  // An unclosed fence runs to the end.
  if (!open) out += text.slice(pos);
  return out;
}

const SAFE_GLOB = /^[\w.\-/*{},?[\]!@+]+$/;
const EXT_GLOB = /^\*{1,2}[\w-]*\.[\w.{},-]+$/;
const DIR_TOKEN = /^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)*\/$/;
const BACKTICK_RE = /`([^`\s]{1,200})`/g;
const PATH_CHAR_RE = /[/*]/g;

/** Characters that end a path-like token. */
function isStop(c: number): boolean {
  // white space, ` ' " ( ) < > [ ] | ;
  return c <= 32 || c === 96 || c === 39 || c === 34 || c === 40 || c === 41 || c === 60 || c === 62 || c === 91 || c === 93 || c === 124 || c === 59;
}

function normaliseGlob(raw: string): string | null {
  let g = raw.replace(/^\.\//, '').replace(/^\/+/, '');
  if (!g || g.includes('\\') || g.split('/').some((seg) => seg === '..' || seg === '.')) return null;
  if (!g.includes('/')) g = `**/${g}`;
  return g;
}

function collectMentions(prose: string): Mention[] {
  const seen = new Set<string>();
  const out: Mention[] = [];
  const push = (m: Mention): void => {
    const key = `${m.kind}:${m.value}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(m);
  };
  // Tokens (runs of non-stop characters) that contain `/` or `*`, found from those characters.
  let doneTo = -1;
  PATH_CHAR_RE.lastIndex = 0;
  for (let m = PATH_CHAR_RE.exec(prose); m; m = PATH_CHAR_RE.exec(prose)) {
    if (m.index < doneTo) continue;
    let a = m.index;
    while (a > 0 && !isStop(prose.charCodeAt(a - 1))) a--;
    let b = m.index + 1;
    while (b < prose.length && !isStop(prose.charCodeAt(b))) b++;
    doneTo = b;
    if (out.length >= 64) break;
    const raw = prose.slice(a, b).replace(/[.,:;!?]+$/, '');
    if (raw.length < 2 || raw.length > 200 || raw.includes('://')) continue;
    if (raw.includes('*')) {
      if (!SAFE_GLOB.test(raw)) continue;
      if (!raw.includes('/') && !EXT_GLOB.test(raw)) continue; // `*emphasis*`, `**bold**`
      const g = normaliseGlob(raw);
      if (g) push({ raw, kind: 'glob', value: g });
    } else if (DIR_TOKEN.test(raw)) {
      const d = raw.replace(/^\.\//, '').replace(/\/+$/, '');
      if (d && d !== '.' && !d.split('/').includes('..')) push({ raw, kind: 'dir', value: d });
    }
  }
  // `src/api` in backticks, without a trailing slash, may still be a directory (checked against the index later).
  if (prose.includes('`')) {
    BACKTICK_RE.lastIndex = 0;
    for (let m = BACKTICK_RE.exec(prose); m; m = BACKTICK_RE.exec(prose)) {
      const raw = m[1]!;
      if (raw.includes('*') || raw.endsWith('/') || raw.includes('://')) continue;
      // A single word (`strict`) is too weak: only paths (`src/api`) count without a trailing slash.
      if (/^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)+$/.test(raw) && !raw.split('/').includes('..')) {
        const d = raw.replace(/^\.\//, '');
        if (d && d !== '.') push({ raw, kind: 'dir', value: d });
      }
    }
  }
  return out;
}

/**
 * A class rather than an object literal with a getter: V8 builds such a literal slowly (a new
 * accessor and closure each time), and there is one scan per heading and per section body.
 */
class Scan implements TextScan {
  private found: Mention[] | null;
  constructor(
    readonly scores: Map<number, TopicScore>,
    private readonly prose: string,
    withMentions: boolean,
  ) {
    this.found = withMentions ? null : [];
  }
  get mentions(): Mention[] {
    this.found ??= collectMentions(this.prose);
    return this.found;
  }
}

function scan(text: string, withMentions: boolean, cap = SCAN_CAP): TextScan {
  const capped = text.length > cap ? text.slice(0, cap) : text;
  const scores = new Map<number, TopicScore>();
  const prose = proseOf(capped, scores);
  scoreKeywords(prose, scores);
  return new Scan(scores, prose, withMentions);
}

// ---------------------------------------------------------------- file index

interface GlobStat {
  count: number;
  first: string | null;
}
interface FileIndex {
  files: readonly string[];
  globs: Map<string, GlobStat>;
  /** Directory path -> number of files under it (lazy). */
  dirs: Map<string, number> | null;
  /** Normalised directory name (`azure-api`) -> directory paths, shallowest first (lazy). */
  byName: Map<string, string[]> | null;
}

/** Keyed on the array itself: the snapshot's `files` is one array for every section of a plan. Do not mutate it. */
const INDEXES = new WeakMap<readonly string[], FileIndex>();
const MATCHERS = new Map<string, (p: string) => boolean>();

function indexOf(files: readonly string[]): FileIndex {
  let idx = INDEXES.get(files);
  if (!idx) {
    idx = { files, globs: new Map(), dirs: null, byName: null };
    INDEXES.set(files, idx);
  }
  return idx;
}

function matcher(glob: string): (p: string) => boolean {
  let m = MATCHERS.get(glob);
  if (!m) {
    if (MATCHERS.size > 5000) MATCHERS.clear();
    try {
      m = picomatch(glob, { dot: true });
    } catch {
      m = () => false;
    }
    MATCHERS.set(glob, m);
  }
  return m;
}

const GLOB_CHARS = /[*?[\]{}()!+@\\]/;

/** How many files a glob matches and the first of them. Literal fast paths agree with picomatch (`dot: true`). */
export function globStat(files: readonly string[], glob: string): GlobStat {
  const idx = indexOf(files);
  const cached = idx.globs.get(glob);
  if (cached) return cached;
  let test: (p: string) => boolean;
  const suffix = /^\*\*\/\*([^/]*)$/.exec(glob);
  const under = /^([^*?[\]{}()!+@\\]+)\/\*\*$/.exec(glob);
  if (suffix && !GLOB_CHARS.test(suffix[1]!)) {
    const s = suffix[1]!;
    test = (p) => {
      const slash = p.lastIndexOf('/');
      return p.length - slash - 1 >= s.length && p.endsWith(s);
    };
  } else if (under) {
    const d = under[1]!;
    const prefix = `${d}/`;
    test = (p) => p === d || p.startsWith(prefix);
  } else if (!GLOB_CHARS.test(glob)) {
    test = (p) => p === glob;
  } else {
    test = matcher(glob);
  }
  let count = 0;
  let first: string | null = null;
  for (const f of files) {
    if (test(f)) {
      count++;
      if (first === null) first = f;
    }
  }
  const stat = { count, first };
  idx.globs.set(glob, stat);
  return stat;
}

function dirIndex(idx: FileIndex): { dirs: Map<string, number>; byName: Map<string, string[]> } {
  if (!idx.dirs || !idx.byName) {
    const dirs = new Map<string, number>();
    for (const f of idx.files) {
      let i = f.indexOf('/');
      while (i > 0) {
        const d = f.slice(0, i);
        dirs.set(d, (dirs.get(d) ?? 0) + 1);
        i = f.indexOf('/', i + 1);
      }
    }
    const byName = new Map<string, string[]>();
    for (const d of [...dirs.keys()].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))) {
      const name = normName(d.slice(d.lastIndexOf('/') + 1));
      const list = byName.get(name);
      if (list) list.push(d);
      else byName.set(name, [d]);
    }
    idx.dirs = dirs;
    idx.byName = byName;
  }
  return { dirs: idx.dirs, byName: idx.byName };
}

function depth(p: string): number {
  let n = 0;
  for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) === 47) n++;
  return n;
}

function normName(s: string): string {
  return s.toLowerCase().replace(/[-_ .]+/g, '-').replace(/^-|-$/g, '');
}

/** A directory glob that covers nearly every file is not a scope. */
function coversAlmostAll(files: readonly string[], count: number): boolean {
  return files.length >= 10 && count >= files.length * 0.9;
}

/** Resolve a mentioned directory (`azure_api`, `src/api`) to a glob over an existing directory, or null. */
function resolveDir(idx: FileIndex, path: string): string | null {
  const { dirs, byName } = dirIndex(idx);
  if (dirs.has(path)) return `${path}/**`;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const candidates = (byName.get(normName(last)) ?? []).filter((d) => d === path || d.endsWith(`/${path}`));
  if (candidates.length === 1) return `${candidates[0]}/**`;
  if (candidates.length > 1) return `**/${path}/**`;
  return null;
}

// ---------------------------------------------------------------- inference

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

/** Keep the globs that match at least one file, with a `file exists` line each; drop duplicates. */
function keepExisting(files: readonly string[], globs: readonly string[]): Kept & { dropped: string[] } {
  const out: string[] = [];
  const evidence: string[] = [];
  const dropped: string[] = [];
  for (const g of globs) {
    if (out.includes(g)) continue;
    const st = globStat(files, g);
    if (st.first !== null) {
      out.push(g);
      evidence.push(`${st.first} exists (matches ${g})`);
    } else dropped.push(g);
  }
  return { globs: out, evidence, dropped };
}

function repoWide(evidence: string[]): ScopeResult {
  return { applyTo: null, evidence };
}

function finish(files: readonly string[], signal: string[], globs: readonly string[], what: string): ScopeResult {
  const kept = keepExisting(files, globs);
  if (kept.globs.length === 0) {
    const tried = globs.length ? `: no file matches ${[...new Set(globs)].slice(0, 6).join(', ')}` : '';
    return repoWide([...signal, `no scope: ${what}${tried}`]);
  }
  if (kept.globs.some((g) => EVERYWHERE.has(g))) return repoWide([...signal, 'no scope: "**" applies everywhere']);
  return { applyTo: kept.globs, evidence: [...signal, ...kept.evidence] };
}

const TEST_GLOB_MEMO = new Map<string, string[]>();
function testGlobs(families: readonly string[]): string[] {
  const key = families.join(',');
  let out = TEST_GLOB_MEMO.get(key);
  if (!out) {
    const fams = families.length ? families.filter((f) => TEST_GLOBS[f]) : Object.keys(TEST_GLOBS);
    out = fams.flatMap((f) => [...(TEST_GLOBS[f] ?? [])]);
    if (TEST_GLOB_MEMO.size < 256) TEST_GLOB_MEMO.set(key, out);
  }
  return out;
}

interface HeadingWork {
  /** Keywords and paths of the heading itself (read only). */
  head: TextScan;
  /** Topics the heading names (strongly or weakly), and those that count only with body keywords. */
  hits: readonly number[];
  needsBody: readonly number[];
  strongHit: boolean;
}

/**
 * The part of inferScope that depends on the heading alone, memoised by heading text: the ~60
 * topic expressions cost more than the rest for a short section, and large files repeat
 * headings ("Notes", "Examples"). Pure, so sharing is safe; bounded, so memory stays small.
 */
const HEADING_MEMO = new Map<string, HeadingWork>();
const HEADING_MEMO_MAX = 4096;

function headingWork(title: string): HeadingWork {
  const cached = HEADING_MEMO.get(title);
  if (cached) return cached;
  const hits: number[] = [];
  const needsBody: number[] = [];
  let strongHit = false;
  TOPICS.forEach((t, i) => {
    if (t.heading.test(title)) {
      hits.push(i);
      strongHit = true;
    } else if (t.headingWeak?.test(title)) hits.push(i);
    else if (t.headingNeedsBody?.test(title)) needsBody.push(i);
  });
  const work: HeadingWork = { head: scan(title, true), hits, needsBody, strongHit };
  if (HEADING_MEMO.size >= HEADING_MEMO_MAX) HEADING_MEMO.clear();
  HEADING_MEMO.set(title, work);
  return work;
}

/**
 * Infer a section's applyTo. `text` is the section's text (its heading included); `files`
 * the workspace files. Deterministic; results for globs are cached per `files` array.
 */
export function inferScope(section: { title: string; kind: string }, text: string, files: readonly string[]): ScopeResult {
  if (section.kind === 'preamble') return repoWide(['no scope: the preamble stays repository-wide']);
  if (section.kind === 'frontmatter') return repoWide(['no scope: front matter stays repository-wide']);
  const title = section.title.trim().slice(0, 300);
  const label = section.kind === 'topic' ? 'topic' : 'heading';
  const idx = indexOf(files);
  const heading = headingWork(title);
  const head = heading.head;

  // 1. Heading names topics of the taxonomy.
  const hits = heading.hits.slice();
  const needsBody = heading.needsBody;
  const strongHit = heading.strongHit;
  // The body is scanned only when needed; with a named topic, only its start (for evidence and hints).
  let scanned: TextScan | null = null;
  const body = (): TextScan => (scanned ??= scan(text, true, strongHit ? HIT_SCAN_CAP : SCAN_CAP));
  for (const i of needsBody) if ((body().scores.get(i)?.score ?? 0) >= W_SECONDARY) hits.push(i);
  hits.sort((a, b) => a - b);
  if (hits.length && !strongHit && section.kind !== 'topic' && GENERAL_CORE_RE.test(title)) {
    return repoWide([`no scope: the ${label} ${quote(title)} is about how to work more than about files`]);
  }
  if (hits.length) return fromHeading(title, label, hits, body(), head, files);

  // 2. Paths named by the heading, then by the body.
  const pathSignal = (mentions: Mention[], where: string): Kept & { overview: boolean } => {
    const globs: string[] = [];
    const evidence: string[] = [];
    for (const m of mentions) {
      if (m.kind === 'glob') {
        if (EVERYWHERE.has(m.value)) continue;
        const st = globStat(files, m.value);
        if (st.first === null) continue;
        if (!globs.includes(m.value)) {
          globs.push(m.value);
          evidence.push(`${where} ${quote(m.raw)}`);
        }
      } else {
        const g = resolveDir(idx, m.value);
        if (!g) continue;
        const st = globStat(files, g);
        if (st.first === null || coversAlmostAll(files, st.count)) continue;
        if (!globs.includes(g)) {
          globs.push(g);
          evidence.push(`${where} ${quote(m.raw)} (directory ${g.replace(/\/\*\*$/, '/')} exists)`);
        }
      }
    }
    return { globs, evidence, overview: globs.length > 4 };
  };

  const headPaths = pathSignal(head.mentions, `${label} names`);
  if (headPaths.globs.length && !headPaths.overview) return finish(files, headPaths.evidence, headPaths.globs, 'paths in the heading');

  if (GENERAL_RE.test(title)) return repoWide([`no scope: general section (${label} ${quote(title)})`]);

  // A heading word that is the name of a directory ("Backend" and backend/).
  const named = headingDirectories(idx, title);
  if (named.length) {
    return finish(files, named.map((d) => `${label} ${quote(title)} names directory ${d.replace(/\/\*\*$/, '/')}`), named, 'directory');
  }

  const bodyPaths = pathSignal(body().mentions, 'mentions');
  if (bodyPaths.overview) return repoWide([`no scope: mentions ${bodyPaths.globs.length} different paths (an overview)`]);
  if (bodyPaths.globs.length) return finish(files, bodyPaths.evidence, bodyPaths.globs, 'mentioned paths');

  // 3. Body keywords: one family must clearly dominate, with repeated evidence.
  return fromBody(body(), files);
}

/** Words that may accompany a directory name in a heading ("Backend folder", "Frontend and backend"). */
const DIR_FILLER = new Set(['directory', 'directories', 'folder', 'folders', 'dir', 'files', 'the', 'and', 'in', 'under', '&']);

/**
 * Directories a heading names: the whole heading is a directory's name ("Backend", "Azure API"
 * for `azure_api/`), or every word of it is, apart from filler ("Frontend and backend"). A heading
 * with any other word ("Code Components") names a concept, not a folder.
 */
function headingDirectories(idx: FileIndex, title: string): string[] {
  const { byName } = dirIndex(idx);
  const resolve = (name: string): string | null => {
    const dirs = byName.get(name);
    if (!dirs) return null;
    // Only an unambiguous directory: the shallowest one if it is alone at its depth.
    const d0 = dirs[0]!;
    if (dirs.length > 1 && depth(dirs[1]!) === depth(d0)) return null;
    const g = `${d0}/**`;
    const st = globStat(idx.files, g);
    return st.first === null || coversAlmostAll(idx.files, st.count) ? null : g;
  };
  const whole = normName(title);
  const w = whole ? resolve(whole) : null;
  if (w) return [w];
  const words = title
    .split(/[^\p{L}\p{N}_-]+/u)
    .map((x) => x.toLowerCase())
    .filter((x) => x && !DIR_FILLER.has(x));
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
  files: readonly string[],
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
  const mentionedGlobs = needMentions ? [...head.mentions, ...body.mentions].filter((m) => m.kind === 'glob' && !EVERYWHERE.has(m.value)) : [];
  const isTests = topics.some((t) => t.id === 'tests');
  const globs: string[] = [];
  const mentionedUsed = new Set<string>();
  const useMentioned = (t: Topic): boolean => {
    if (!t.prefersMentioned) return false;
    const ok = mentionedGlobs.filter((m) => t.prefersMentioned!.test(m.value) && globStat(files, m.value).first !== null);
    for (const m of ok) {
      if (!mentionedUsed.has(m.value)) signal.push(`mentions ${quote(m.raw)}`);
      mentionedUsed.add(m.value);
      globs.push(m.value);
    }
    return ok.length > 0;
  };
  for (const t of topics) {
    if (t.id === 'tests') {
      if (useMentioned(t)) continue;
      // Languages in the heading say whose tests; else the test tools the body names; else every family.
      let fams = topics.filter((x) => x.language).map((x) => x.family);
      if (!fams.length) {
        const ti = TOPICS.indexOf(t);
        const kws = [...(head.scores.get(ti)?.keywords.keys() ?? []), ...(body.scores.get(ti)?.keywords.keys() ?? [])];
        fams = [...new Set(kws.map((k) => TEST_HINTS[k]).filter((f): f is string => !!f))];
      }
      // A named language with no test files of its own gives no scope (never another language's tests).
      let cands = testGlobs(fams).filter((g) => globStat(files, g).first !== null);
      if (!cands.length && !fams.length) cands = TEST_DIRS.filter((g) => globStat(files, g).first !== null);
      globs.push(...cands);
      continue;
    }
    // With tests in the heading, a language only says whose tests ("Python tests" is not every .py file).
    if (isTests && t.language) continue;
    if (useMentioned(t)) continue;
    const variant = t.variants?.find(([re]) => re.test(title));
    globs.push(...(variant ? variant[1] : t.globs));
  }
  return finish(files, signal, globs, `no file matches what the ${label} names`);
}

function fromBody(body: TextScan, files: readonly string[]): ScopeResult {
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
      globs.push(...testGlobs(fams));
    } else globs.push(...t.globs);
  }
  return finish(files, signal, globs, 'keywords');
}

/**
 * Classify a block of unstructured text (a paragraph, a list item) for topic grouping.
 * Conservative: a label line (`Testing:`, `**Testing**`) naming a topic is strong; otherwise the
 * block's keywords must reach 2 (one primary keyword or two secondary ones; 3 for a block longer
 * than 300 characters) and be at least twice any other family's.
 */
export function classifyBlock(text: string): Topic | null {
  const capped = text.length > SCAN_CAP ? text.slice(0, SCAN_CAP) : text;
  const firstLine = /^[^\r\n]*/.exec(capped.replace(/^\s+/, ''))?.[0] ?? '';
  return labelTopic(firstLine) ?? decideBlock(scan(capped, false).scores, capped.length);
}

const LABEL_RE = /^(?:[-*+]\s+|\d{1,9}[.)]\s+)?(?:\*\*|__)?([^*_:\r\n]{1,60}?)(?:\*\*|__)?\s*:|^(?:\*\*|__)([^*_\r\n]{1,60})(?:\*\*|__)\s*$/;

/** The topic a label line names (`Testing:`, `- **Python**: …`, `**Docker**`), if exactly one family. */
export function labelTopic(firstLine: string): Topic | null {
  const labelMatch = LABEL_RE.exec(firstLine);
  if (!labelMatch) return null;
  const label = (labelMatch[1] ?? labelMatch[2] ?? '').trim();
  if (!label || GENERAL_RE.test(label)) return null;
  const hits = TOPICS.filter((t) => t.heading.test(label) || (t.headingWeak?.test(label) ?? false));
  if (hits.length === 1 || (hits.length > 1 && new Set(hits.map((t) => t.family)).size === 1)) return hits[0]!;
  return null;
}

/** Decide a block's topic from its keyword scores; `length` is the block's length (characters or bytes). */
export function decideBlock(scores: ReadonlyMap<number, TopicScore>, length: number): Topic | null {
  let top: TopicScore | undefined;
  for (const s of scores.values()) if (!top || s.score > top.score || (s.score === top.score && s.topic < top.topic)) top = s;
  // A short item naming its language once is clear; a long paragraph needs more than one mention.
  if (!top || top.score < (length > 300 ? W_PRIMARY + W_SECONDARY : W_PRIMARY)) return null;
  const fam = TOPICS[top.topic]!.family;
  let other = 0;
  for (const s of scores.values()) if (TOPICS[s.topic]!.family !== fam && s.score > other) other = s.score;
  if (other * 2 > top.score) return null;
  return TOPICS[top.topic]!;
}
