// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code runs in Temporal's deterministic sandbox: Node built-ins (other than the few the SDK
// shims), I/O libraries and our own side-effecting folders would break replay or the bundle.
const allowedBuiltins = new Set(['assert', 'url', 'util']);
const forbiddenBuiltins = builtinModules
  .filter((name) => !name.startsWith('_') && !allowedBuiltins.has(name))
  .flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '.cache/', 'test-output/', 'api/console/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The finance console is plain browser JavaScript, served as is (no build step): no TypeScript
    // project to type-check it against, and browser globals instead of Node's. The globals package
    // is not installed, so the few the console uses are listed here.
    files: ['api/console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'sessionStorage',
          'localStorage',
          'fetch',
          'URL',
          'URLSearchParams',
          'crypto',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'Node',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...forbiddenBuiltins.map((name) => ({
              name,
              message: 'Workflow code must not use Node built-ins.',
            })),
            ...[
              'knex',
              'pg',
              'express',
              'pino',
              '@temporalio/client',
              '@temporalio/worker',
              '@temporalio/activity',
            ].map((name) => ({ name, message: 'Workflow code must not do I/O; call an activity instead.' })),
          ],
          patterns: [
            {
              group: [
                '../activities/*',
                '../activities',
                '../db/*',
                '../gateway/*',
                '../api/*',
                '../sandbox/*',
                '../workers/*',
              ],
              allowTypeImports: true,
              message:
                'Workflows import only types from I/O folders; side effects go through proxyActivities.',
            },
          ],
        },
      ],
    },
  },
);
