// ESLint: promise hygiene (a floating promise once crashed an embedding program), the layer rules
// of DESIGN.md (the same table test/arch/layers.test.ts checks) and no console in library code.
import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const LAYERS = JSON.parse(readFileSync(new URL('./test/arch/layers.json', import.meta.url), 'utf8'));
const ALL = Object.keys(LAYERS.runtime);

/** The imports a layer may not make: other layers it does not list (types-only ones allow type imports). */
function layerRules(layer) {
  const allowed = new Set([layer, ...LAYERS.runtime[layer]]);
  const typesOnly = LAYERS.typesOnly[layer] ?? [];
  const patterns = [];
  for (const other of ALL) {
    if (allowed.has(other)) continue;
    const group = [`../${other}/*`, `../../${other}/*`, `../../../${other}/*`];
    const typeOk = typesOnly.includes(other);
    patterns.push({
      group,
      ...(typeOk ? { allowTypeImports: true } : {}),
      message: `${layer} may not import ${typeOk ? 'values from ' : ''}${other} (DESIGN.md layers; test/arch/layers.json).`,
    });
  }
  // The SDK's runtime is imported by the protocol adapter only (and the demo agent, its own program).
  if (layer !== 'protocol' && layer !== 'demo') {
    patterns.push({
      group: ['@agentclientprotocol/sdk', '@agentclientprotocol/sdk/*'],
      allowTypeImports: true,
      message: 'only src/protocol/connection.ts imports the ACP SDK at run time.',
    });
  }
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'web/dist/**', 'test/fixtures/**', '.cache/**'] },
  {
    files: ['**/*.ts', 'web/src/**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-array-sort-compare': ['error', { ignoreStringArrays: true }],
      'no-debugger': 'error',
    },
  },
  // typescript-eslint's recommended rules on all code. An `_` name is a deliberate omission (a rest
  // sibling dropped, a callback's unused argument); a `let` read by a closure before its single
  // assignment cannot become a `const`.
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: ['**/*.ts', 'web/src/**/*.tsx'] })),
  {
    files: ['**/*.ts', 'web/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          ignoreRestSiblings: true,
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read JSON-RPC answers whose shape is what they assert (`request<any>`): typing each
    // answer would repeat the assertion. Library, web, bench and bin code get no `any`.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The web UI (React, DOM types): its own tsconfig. The same promise rules: a floating promise in
    // an event handler loses its error as surely as one in the library.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: false,
        project: './web/tsconfig.json',
        tsconfigRootDir: import.meta.dirname,
        ecmaFeatures: { jsx: true },
      },
    },
  },
  ...ALL.map(layerRules),
  {
    // Library code never writes to stdout/stderr: it takes a Logger (the CLI and server log).
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', 'src/server/**', 'src/demo/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'stdout',
          message: 'library code takes a Logger; only the CLI and server write to stdout.',
        },
        {
          object: 'process',
          property: 'stderr',
          message: 'library code takes a Logger; only the CLI and server write to stderr.',
        },
      ],
    },
  },
);
