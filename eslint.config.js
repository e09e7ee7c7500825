// ESLint flat config: the recommended JavaScript and typescript-eslint rules, with the project's deliberate
// idioms allowed (non-null assertions under noUncheckedIndexedAccess, control characters in the detectors' regexes).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tools/**', 'coverage/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowTernary: true, allowShortCircuit: true }],
    },
  },
  {
    // One way to open SQLite (src/store/sqlite.ts keeps every Database and Statement referenced): with better-sqlite3
    // 12 on Node 24 one collected by a background GC aborts the process, a vitest worker included.
    files: ['**/*.ts'],
    ignores: ['src/store/sqlite.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'better-sqlite3', message: 'open databases with openDatabase() from src/store/sqlite.ts (import type is fine)', allowTypeImports: true }] }],
    },
  },
  {
    // A store or pool call whose promise nobody awaits fails unheard, and in a test a close nobody awaits still writes
    // files while the next hook removes their folder (ENOTEMPTY): sources, tests and benches are linted with types.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // Tool results, resources, arguments and messages are the attacker's text: every expression in the sources must
    // run in time linear in it. A finding on input that is bounded some other way carries a disable comment saying how.
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-backtracking': 'error', 'regexp/no-super-linear-move': 'error' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
