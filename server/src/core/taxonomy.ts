/**
 * The topic taxonomy: the languages, frameworks and concerns an instruction section can be
 * about, with the words that name them (headings, body keywords, fence info strings) and the
 * globs their files have. Data only: scope.ts decides a section's scope from it, keywords.ts
 * finds its words in text, topics.ts groups unstructured text by it. Adding a topic is adding
 * an entry here.
 */

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
  /**
   * Text that shows rules for writing this topic's files. Where set, a section without it is not
   * scoped to them by its heading: a CI section that lists what the pipelines check is for every
   * change; one with workflow YAML (`runs-on:`, `uses:`, a yaml fence) is for the workflow files.
   */
  authoring?: RegExp;
  /** A heading that names a variant (the CI system) narrows the globs to that variant's. */
  variants?: ReadonlyArray<readonly [RegExp, readonly string[]]>;
  /** Globs that count only when the section's keywords of this topic name them (Compose files: "docker compose"). */
  namedGlobs?: readonly [RegExp, readonly string[]];
}

/** Word-bounded, case-insensitive alternation (`#`, `+` and `.` count as part of a word: C#, C++, .NET). */
function words(...alts: string[]): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_#+])(?:${alts.join('|')})(?![A-Za-z0-9_#+])`, 'i');
}

export const W_PRIMARY = 2;
export const W_SECONDARY = 1;
export const W_WEAK = 0.5;

export const TOPICS: readonly Topic[] = [
  {
    id: 'typescript', name: 'TypeScript', family: 'js', language: true,
    heading: words('typescript', 'ts', 'tsx', 'tsconfig', 'zod', 'nestjs', 'nest\\.js'),
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
    heading: words('python', 'py', 'django', 'flask', 'fastapi', 'pydantic'),
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
    heading: words('java', 'spring', 'spring boot', 'jdk'),
    primary: ['java', 'spring'], secondary: ['.java', 'jdk', 'jvm', 'lombok'],
    fences: ['java'],
    globs: ['**/*.java'],
  },
  {
    id: 'kotlin', name: 'Kotlin', family: 'jvm', language: true,
    heading: words('kotlin', 'ktor', 'jetpack compose'),
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
    heading: /(?<![A-Za-z0-9_#+])(?:c\+\+|cpp|c\/c\+\+)(?![A-Za-z0-9_#+])|^\s*c\s*$|(?<![A-Za-z0-9_#+/])c (?:code|language|sources?)\b/i,
    primary: ['c++', 'cpp'], secondary: ['.cpp', '.hpp', '.cc', '.h'],
    fences: ['c', 'cpp', 'c++', 'cc', 'h', 'hpp'],
    globs: ['**/*.c', '**/*.h', '**/*.cpp', '**/*.hpp', '**/*.cc', '**/*.cxx'],
  },
  // Build systems: their rules are for the build scripts, wherever the build has them.
  {
    id: 'gradle', name: 'Gradle', family: 'jvm', language: false,
    heading: words('gradle'),
    primary: ['gradle', 'build.gradle', 'build.gradle.kts', 'settings.gradle.kts', 'libs.versions.toml'], secondary: ['gradle.properties', 'version catalog'],
    fences: ['gradle'],
    globs: ['**/*.gradle', '**/*.gradle.kts', '**/gradle.properties', '**/libs.versions.toml'],
  },
  {
    id: 'maven', name: 'Maven', family: 'jvm', language: false,
    heading: words('maven'),
    primary: ['maven', 'pom.xml', 'mvn'], secondary: ['mvnw', 'dependencymanagement'],
    globs: ['**/pom.xml'],
  },
  {
    id: 'cmake', name: 'CMake', family: 'c', language: false,
    heading: words('cmake'),
    primary: ['cmake', 'cmakelists.txt'], secondary: ['.cmake'],
    fences: ['cmake'],
    globs: ['**/CMakeLists.txt', '**/*.cmake'],
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
    id: 'clojure', name: 'Clojure', family: 'clojure', language: true,
    heading: words('clojure', 'clojurescript', 'cljs'),
    primary: ['clojure', 'clojurescript', 'cljs'], secondary: ['.clj', '.cljs', '.cljc', 'deps.edn'],
    fences: ['clojure', 'clj', 'cljs', 'clojurescript'],
    globs: ['**/*.clj', '**/*.cljs', '**/*.cljc'],
  },
  {
    id: 'julia', name: 'Julia', family: 'julia', language: true,
    heading: words('julia'),
    primary: ['julia'], secondary: ['.jl', 'project.toml'],
    fences: ['julia', 'jl'],
    globs: ['**/*.jl'],
  },
  {
    id: 'perl', name: 'Perl', family: 'perl', language: true,
    heading: words('perl'),
    primary: ['perl', 'cpan'], secondary: ['.pl', '.pm'],
    fences: ['perl'],
    globs: ['**/*.pl', '**/*.pm', '**/*.t'],
  },
  {
    id: 'ocaml', name: 'OCaml', family: 'ocaml', language: true,
    heading: words('ocaml'),
    primary: ['ocaml'], secondary: ['.ml', '.mli', 'opam'],
    fences: ['ocaml', 'ml'],
    globs: ['**/*.ml', '**/*.mli'],
  },
  {
    id: 'fsharp', name: 'F#', family: 'dotnet', language: true,
    heading: words('f#', 'fsharp'),
    primary: ['f#', 'fsharp'], secondary: ['.fs', '.fsproj'],
    fences: ['fsharp', 'f#', 'fs'],
    globs: ['**/*.fs', '**/*.fsi', '**/*.fsx'],
  },
  {
    id: 'erlang', name: 'Erlang', family: 'erlang', language: true,
    heading: words('erlang'),
    primary: ['erlang', 'rebar3'], secondary: ['.erl', '.hrl'],
    fences: ['erlang'],
    globs: ['**/*.erl', '**/*.hrl'],
  },
  {
    id: 'fortran', name: 'Fortran', family: 'fortran', language: true,
    heading: words('fortran'),
    primary: ['fortran'], secondary: ['.f90', '.f'],
    fences: ['fortran'],
    globs: ['**/*.f90', '**/*.f95', '**/*.f03', '**/*.f'],
  },
  {
    id: 'groovy', name: 'Groovy', family: 'jvm', language: true,
    heading: words('groovy'),
    primary: ['groovy'], secondary: ['.groovy', 'jenkinsfile'],
    fences: ['groovy'],
    globs: ['**/*.groovy'],
  },
  {
    id: 'objc', name: 'Objective-C', family: 'apple', language: true,
    heading: words('objective-c', 'objc'),
    primary: ['objective-c', 'objc'], secondary: ['.m', '.mm'],
    fences: ['objective-c', 'objc', 'objectivec'],
    globs: ['**/*.m', '**/*.mm'],
  },
  {
    id: 'haskell', name: 'Haskell', family: 'haskell', language: true,
    heading: words('haskell'),
    primary: ['haskell', 'cabal'], secondary: ['.hs', 'stack.yaml'],
    fences: ['haskell', 'hs'],
    globs: ['**/*.hs'],
  },
  {
    id: 'zig', name: 'Zig', family: 'zig', language: true,
    heading: words('zig'),
    primary: ['zig'], secondary: ['.zig', 'build.zig'],
    fences: ['zig'],
    globs: ['**/*.zig'],
  },
  {
    id: 'solidity', name: 'Solidity', family: 'solidity', language: true,
    heading: words('solidity'),
    primary: ['solidity'], secondary: ['.sol', 'pragma solidity'],
    fences: ['solidity', 'sol'],
    globs: ['**/*.sol'],
  },
  {
    id: 'verilog', name: 'Verilog', family: 'hdl', language: true,
    heading: words('verilog', 'systemverilog'),
    primary: ['verilog', 'systemverilog'], secondary: ['.sv', '.svh'],
    fences: ['verilog', 'systemverilog', 'sv'],
    globs: ['**/*.v', '**/*.sv', '**/*.svh'],
  },
  {
    id: 'openscad', name: 'OpenSCAD', family: 'scad', language: true,
    heading: words('openscad'),
    primary: ['openscad'], secondary: ['.scad'],
    fences: ['openscad', 'scad'],
    globs: ['**/*.scad'],
  },
  {
    id: 'nix', name: 'Nix', family: 'nix', language: true,
    heading: words('nix', 'nixos', 'nix flakes?'),
    primary: ['nix', 'nixos', 'nixpkgs', 'flake.nix'], secondary: ['.nix', 'flake.lock'],
    fences: ['nix'],
    globs: ['**/*.nix', '**/flake.lock'],
  },
  {
    id: 'xaml', name: 'XAML', family: 'dotnet', language: true,
    heading: words('xaml', 'axaml'),
    primary: ['xaml'], secondary: ['.xaml', '.axaml'],
    fences: ['xaml'],
    globs: ['**/*.xaml', '**/*.axaml'],
  },
  {
    id: 'typespec', name: 'TypeSpec', family: 'typespec', language: true,
    heading: words('typespec'),
    primary: ['typespec'], secondary: ['.tsp', 'tspconfig.yaml'],
    fences: ['typespec', 'tsp'],
    globs: ['**/*.tsp'],
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
    // Tailwind's rules are for the markup its classes are written in, with the stylesheets.
    variants: [[/tailwind/i, ['**/*.css', '**/*.scss', '**/*.html', '**/*.erb', '**/*.tsx', '**/*.jsx', '**/*.vue', '**/*.svelte']]],
  },
  {
    id: 'html', name: 'HTML', family: 'html', language: false,
    heading: words('html'),
    primary: ['html'], secondary: ['.html'],
    fences: ['html'],
    globs: ['**/*.html', '**/*.htm'],
  },
  {
    // Accessibility rules are for the files that render the interface: the component files (JSX, TSX, Vue, Svelte).
    id: 'accessibility', name: 'Accessibility', family: 'ui', language: false,
    heading: words('accessibility', 'a11y', 'wcag'),
    primary: ['accessibility', 'a11y', 'wcag', 'screen reader', 'screen readers'], secondary: ['aria', 'aria-label', 'keyboard navigation', 'alt text'],
    globs: ['**/*.tsx', '**/*.jsx', '**/*.vue', '**/*.svelte'],
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
    heading: words('ci/cd', 'cicd', 'continuous integration', 'continuous delivery', 'continuous deployment', 'github actions?', 'actions workflows?', 'github workflows?', 'workflow files?', 'gitlab ci', 'azure pipelines', 'azure devops pipelines?', 'build pipelines?', 'ci pipelines?', 'jenkins', 'circleci'),
    headingWeak: words('ci', 'pipelines'),
    primary: ['github actions', 'workflow files', '.github/workflows', 'ci/cd', 'gitlab-ci', 'jenkins', 'circleci', 'runs-on'],
    secondary: ['workflows', 'ci', 'actions/checkout', 'pipelines'],
    weak: ['pipeline', 'workflow'],
    globs: ['.github/workflows/**', '**/.gitlab-ci.yml', '**/azure-pipelines*.yml', '.circleci/**', '**/Jenkinsfile', '.buildkite/**'],
    prefersMentioned: /workflow|pipeline|\.github\/|gitlab|circleci|jenkins/i,
    authoring: /```ya?ml|\b(?:runs-on|uses|steps|permissions|jobs|needs|stages|script|trigger|pool):|\bactions\/[a-z-]+@|\bpin(?:s|ned|ning)?\b|\bworkflow (?:files?|yaml|syntax)\b|\breusable workflows?\b|\bworkflow[_ ]dispatch\b|\baction versions?\b/i,
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
    globs: ['**/Dockerfile', '**/Dockerfile.*', '**/*.dockerfile'],
    namedGlobs: [/compose/, ['**/docker-compose*.yml', '**/docker-compose*.yaml', '**/compose.yml', '**/compose.yaml']],
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
    // A heading that names one kind of customization file is about that kind only.
    variants: [
      [/\bprompt/i, ['**/*.prompt.md']],
      [/\bskills?\b/i, ['**/SKILL.md']],
      [/\bagents?\b/i, ['**/*.agent.md', '**/*.chatmode.md']],
      [/\binstructions? files?\b|\.instructions\.md/i, ['**/*.instructions.md']],
    ],
  },
  {
    id: 'make', name: 'Makefile', family: 'build', language: false,
    heading: words('makefiles?', 'gnu make'),
    primary: ['makefile', 'makefiles'], secondary: ['.mk'],
    fences: ['make', 'makefile'],
    globs: ['**/Makefile', '**/makefile', '**/GNUmakefile', '**/*.mk'],
  },
  {
    id: 'liquibase', name: 'Liquibase', family: 'sql', language: false,
    heading: words('liquibase'),
    primary: ['liquibase'], secondary: ['db.changelog-master.yaml', 'db/changelog'],
    globs: ['**/db/changelog/**'],
  },
  {
    id: 'flyway', name: 'Flyway', family: 'sql', language: false,
    heading: words('flyway'),
    primary: ['flyway'], secondary: ['db/migration'],
    globs: ['**/db/migration/**'],
  },
  {
    id: 'alembic', name: 'Alembic', family: 'sql', language: false,
    heading: words('alembic'),
    primary: ['alembic'], secondary: ['alembic.ini', 'alembic revision'],
    globs: ['**/alembic/**', '**/alembic.ini'],
  },
  // Data formats: only a heading of nothing but the format's name and generic words ("JSON
  // instructions", "JSON / JSONC", "YAML") names their files; "YAML formatting" is a general
  // heading, which stays repository-wide. Code that reads or writes JSON ("JSON serialization",
  // "Working with JSON") is about the code, so no body word confirms them.
  {
    id: 'json', name: 'JSON', family: 'data', language: false,
    heading: /(?!)/,
    headingNeedsBody: words('json', 'jsonc'),
    primary: [],
    globs: ['**/*.json', '**/*.jsonc'],
  },
  {
    id: 'yaml', name: 'YAML', family: 'data', language: false,
    heading: /(?!)/,
    headingNeedsBody: words('yaml', 'yml'),
    primary: [],
    globs: ['**/*.yaml', '**/*.yml'],
  },
  {
    id: 'renovate', name: 'Renovate', family: 'deps', language: false,
    heading: words('renovate', 'renovate ?bot'),
    primary: ['renovate', 'renovatebot'], secondary: ['renovate.json', 'renovate.json5'],
    globs: ['**/renovate.json', '**/renovate.json5', '**/.renovaterc', '**/.renovaterc.json'],
  },
  {
    id: 'coderabbit', name: 'CodeRabbit', family: 'review-bot', language: false,
    heading: words('coderabbit'),
    primary: ['coderabbit'], secondary: ['.coderabbit.yaml', '.coderabbit.yml'],
    globs: ['**/.coderabbit.yaml', '**/.coderabbit.yml'],
  },
  {
    id: 'goreleaser', name: 'GoReleaser', family: 'release', language: false,
    heading: words('goreleaser'),
    primary: ['goreleaser'], secondary: ['.goreleaser.yml', '.goreleaser.yaml'],
    globs: ['**/.goreleaser.yml', '**/.goreleaser.yaml'],
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

/** Test file patterns per language family, the way people write them (as surveyed in real applyTo values). */
export const TEST_GLOBS: Readonly<Record<string, readonly string[]>> = {
  js: ['**/*.test.ts', '**/*.test.tsx', '**/*.spec.ts', '**/*.spec.tsx', '**/*.test.js', '**/*.test.jsx', '**/*.spec.js', '**/*.spec.jsx', '**/*.test.mjs', '**/*.e2e.ts', '**/*.e2e.tsx', '**/*.e2e-spec.ts', '**/__tests__/**'],
  py: ['**/test_*.py', '**/*_test.py', '**/conftest.py'],
  go: ['**/*_test.go'],
  jvm: ['**/*Test.java', '**/*Tests.java', '**/*IT.java', '**/*Test.kt', '**/*Tests.kt', '**/*Spec.kt', '**/*Spek.kt', '**/src/test/**'],
  dotnet: ['**/*Tests.cs', '**/*Test.cs', '**/*.*Tests/**/*.cs', '**/*.Tests.*/**/*.cs'],
  ruby: ['**/*_spec.rb', '**/*_test.rb', '**/spec/**'],
  php: ['**/*Test.php'],
  swift: ['**/*Tests.swift'],
  dart: ['**/*_test.dart'],
  rust: ['**/tests/**/*.rs'],
};
export const TEST_DIRS: readonly string[] = ['tests/**', 'test/**', '__tests__/**', 'spec/**', 'e2e/**'];
/** Keywords that say which language's tests a section means. */
export const TEST_HINTS: Readonly<Record<string, string>> = {
  vitest: 'js', jest: 'js', mocha: 'js', playwright: 'js', cypress: 'js', pytest: 'py', junit: 'jvm', xunit: 'dotnet', nunit: 'dotnet', rspec: 'ruby', phpunit: 'php', 'go test': 'go', 'cargo test': 'rust',
};

/**
 * Headings that are about how to work rather than where: they stay repository-wide unless the
 * heading also names a language or tool ("General TypeScript rules" is still TypeScript).
 * GENERAL_CORE words also outweigh a generic topic noun: "Build & test commands" is about
 * running things, not about test files; GENERAL_SUFFIX words do not ("Testing guidelines").
 */
export const GENERAL_CORE_RE = words(
  'general', 'overview', 'introduction', 'intro', 'about', 'communication', 'tone', 'style guide', 'principles?', 'philosophy', 'persona', 'role',
  'behaviou?r', 'responses?', 'answers?', 'conversation', 'summary', 'context', 'project', 'repository', 'repo', 'architecture', 'structure',
  'layout', 'organi[sz]ation', 'getting started', 'setup', 'set up', 'commands', 'workflows?', 'how to', 'running', 'local development',
  'environment', 'variables', 'build', 'builds', 'building', 'lint', 'linting', 'git', 'commits?', 'pull requests?', 'prs?', 'code review',
  'reviews?', 'security', 'performance', 'naming', 'formatting', 'errors?', 'error handling', 'logging', 'dependencies', 'license', 'contributing',
  'faq', 'glossary', 'terminology', 'tasks?', 'language', 'code style', 'quality', 'scope', 'basics', 'misc', 'miscellaneous', 'other',
  // Reading lists point to documents to learn from; they are not rules for editing those documents.
  'further reading', 'see also', 'learn more', 'references', 'useful links', 'docs to read', 'reading list',
  // Comments in code (doc comments, docstrings) are rules for the code they sit in, not for documentation files.
  '(?:code |doc |documentation |xml (?:doc |documentation )?)?comments?', 'xml doc(?:s|umentation)?', 'docstrings?', 'jsdoc', 'tsdoc', 'godoc',
  // Keeping one thing in step with another ("Keeping docs in sync") is a duty of every change, not a rule for those files.
  'in sync', 'up[- ]to[- ]date', 'keep(?:ing)?(?: \\w+){1,2} current',
);
export const GENERAL_SUFFIX_RE = words(
  'rules', 'guidelines', 'conventions', 'requirements', 'best practices', 'standards', 'coding standards', 'checklist', 'notes?', 'instructions', 'tips',
  'patterns?', 'recommendations', 'important', 'critical', 'must', 'always', 'never', 'do not', "don'?t",
);
/**
 * Installing or running the tools ("Python virtual environment", "Shell environment", "Rust
 * toolchain", "Running tests"): needed wherever one works, even when the heading names one
 * language or topic, so such a heading stays repository-wide.
 */
export const HOW_TO_RUN_RE = words('environment', 'getting started', 'commands', 'running', 'local development', 'installation', 'install', 'toolchain');
/** Rules for how people work together, whatever the file: they stay repository-wide. */
export const CROSS_CUTTING_RE = words(
  'commits?', 'commit messages?', 'pull requests?', 'prs?', 'code reviews?', 'reviews?', 'reviewing', 'reviewers?', 'communication', 'tone',
  'persona', 'role', 'behaviou?r', 'responses?', 'answers?', 'conversation', 'style guide', 'code style', 'branch(?:es|ing)?', 'git', 'contributing',
  'principles?', 'philosophy', 'etiquette',
);
export const GENERAL_RE = { test: (title: string): boolean => GENERAL_CORE_RE.test(title) || GENERAL_SUFFIX_RE.test(title) };

export const EVERYWHERE = new Set(['*', '**', '**/*', '**/**', '*/**', '**/*.*', './**']);
