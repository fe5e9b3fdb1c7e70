/**
 * The esbuild options every bundle of this repository is built with: the product
 * (scripts/build.mjs) and the bench's anchors (bench/cold-start.mjs bundles the minimal SDK
 * server the same way, so start times compare like for like).
 */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // CommonJS dependencies call require() for Node built-ins; an ESM file has no require of its own.
  banner: { js: "import { createRequire as __coCreateRequire } from 'node:module';\nconst require = __coCreateRequire(import.meta.url);" },
  // Less text to parse at every start; identifiers are kept, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** The product's split build (scripts/build.mjs), shared with test/unit/start-load.test.ts, which checks what each command loads. */
export const productSplit = {
  entryPoints: { index: 'server/src/index.ts' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
};
