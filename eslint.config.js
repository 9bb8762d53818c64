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

/**
 * db/ is the one door to the database: a knex call that names a table (`db('runs')`, `trx('runs')`,
 * `.from('runs')`, `.into('runs')`) or raw SQL belongs in a named function there, so every status change
 * passes its record's transition function and its event.
 */
const TABLE_MESSAGE = 'Only db/ names a table: call a named function in db/<capability>.';
const TABLE_CALLS = [
  "CallExpression[callee.name=/^(db|trx|knex|tx)$/][arguments.0.type='Literal']",
  "CallExpression[callee.property.name='db'][arguments.0.type='Literal']",
  "CallExpression[callee.property.name=/^(table|into|raw|joinRaw|fromRaw)$/][callee.object.name!='express']",
  "CallExpression[callee.property.name='from'][callee.object.name!=/^(Array|Buffer|Object|Promise)$/][arguments.0.type='Literal']",
  // A knex join names a table and two columns; an array's join has one argument.
  "CallExpression[callee.property.name=/^(join|leftJoin|innerJoin)$/][callee.object.name!='path'][arguments.1]",
].map((selector) => ({ selector, message: TABLE_MESSAGE }));

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '.cache/', 'test-output/'] },
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
    // The finance console is plain browser JavaScript, served as is (no build step), with browser
    // globals instead of Node's. Its types are checked by its own project (api/console/tsconfig.json,
    // JSDoc and the DOM library, in `npm run typecheck`), not by these type-aware rules. The globals
    // package is not installed, so the few the console uses are listed here.
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
    // The evidence pack's verification script runs on an auditor's machine with Node alone: plain
    // JavaScript with Node's globals, checked without type information.
    files: ['api/reports/evidence-kit/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly' },
    },
  },
  ...importDirections(),
  {
    // A capability's contracts are one module (contracts/<capability>/index.ts): the files inside it are its
    // own business, so a contract can move between them without touching a layer.
    files: ['**/*.ts'],
    ignores: ['contracts/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)contracts/[a-z-]+/[^/]+$',
              message:
                "Import the capability's contracts module (contracts/<capability>), not a file inside it.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['activities/**/*.ts', 'api/**/*.ts', 'workers/**/*.ts', 'workflows/**/*.ts', 'platform/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...TABLE_CALLS] },
  },
  {
    // A string name alone lets a workflow's name or arguments drift from what the worker registers.
    files: ['api/**/*.ts'],
    ignores: ['api/workflow-starts.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...TABLE_CALLS,
        {
          selector:
            "CallExpression[callee.object.property.name='workflow'][callee.property.name=/^(start|execute|signalWithStart)$/]",
          message:
            'Start workflows with startWorkflow/executeWorkflow (api/workflow-starts.ts): the name and arguments are checked.',
        },
      ],
    },
  },
);

/**
 * DESIGN.md's import directions ("Layout"), at any folder depth: a folder pattern matches `../db/x`
 * and `../../db/x` alike. Folders not named there (platform/: configuration, logging, codec) serve the
 * process folders. Cycles, type imports included, are checked by `npm run lint:cycles`.
 */
function importDirections() {
  /** An import of `folder` or anything in it, from any depth (`../db`, `../../db/knex`). */
  const folder = (name, except = []) =>
    `(^|/)${name}(/${except.length ? `(?!(${except.join('|')})$)` : ''}.*)?$`;
  const forbid = (names, message, extra = {}) => ({
    regex: `(${names.map((name) => folder(name)).join(')|(')})`,
    message,
    ...extra,
  });
  /** Workflow code: what every other folder reaches only through contracts/ (ids, inputs, signals, types). */
  const workflowImplementations = { regex: folder('workflows') };
  const direction = (files, patterns, paths = []) => ({
    files,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] },
  });
  return [
    direction(
      ['gateway/**/*.ts'],
      [
        forbid(
          [
            'sandbox',
            'workflows',
            'activities',
            'workers',
            'api',
            'db',
            'migrations',
            'scripts',
            'test',
            'platform',
          ],
          'gateway/ is the protocol alone: it imports nothing of ours.',
        ),
        {
          group: ['@temporalio/*', 'express', 'knex', 'pg', 'pino'],
          message: 'gateway/ knows nothing of Temporal, Express or the database.',
        },
      ],
    ),
    direction(
      ['sandbox/**/*.ts'],
      [
        forbid(
          ['workflows', 'activities', 'workers', 'api', 'db', 'migrations', 'scripts', 'test', 'platform'],
          'The sandbox simulates the gateway: it imports gateway/ only.',
        ),
      ],
    ),
    direction(
      ['contracts/**/*.ts'],
      [
        forbid(
          [
            'workflows',
            'activities',
            'db',
            'api',
            'sandbox',
            'workers',
            'platform',
            'migrations',
            'scripts',
            'test',
          ],
          "contracts/ is what a capability's layers share (ids, inputs, statuses, signals, activity interfaces): " +
            'every layer imports it, and it imports nothing of theirs.',
        ),
        {
          regex: folder('gateway', ['result-codes', 'limits', 'operations']),
          allowTypeImports: true,
          message:
            'contracts/ may read the pure gateway facts: the result codes, the limits, the operation table.',
        },
      ],
      [
        ...forbiddenBuiltins.map((name) => ({
          name,
          message: 'contracts/ is bundled with the workflows: no Node built-ins.',
        })),
        ...[
          'knex',
          'pg',
          'express',
          'pino',
          '@temporalio/client',
          '@temporalio/worker',
          '@temporalio/activity',
        ].map((name) => ({ name, message: 'contracts/ is bundled with the workflows: no I/O.' })),
      ],
    ),
    direction(
      ['workflows/**/*.ts'],
      [
        forbid(
          ['db', 'api', 'sandbox', 'workers', 'platform', 'migrations', 'scripts', 'test'],
          'Workflow code does no I/O.',
        ),
        {
          regex: folder('activities'),
          message:
            'Workflows take their activity interfaces from contracts/<capability>, never from activities/.',
        },
        {
          // Pure, dependency-free gateway facts may be imported as values: the result-code table, the limits
          // and the operation table (plain data; gateway-ids.ts reads the orderId and requestId limits there).
          regex: folder('gateway', ['result-codes', 'limits', 'operations']),
          allowTypeImports: true,
          message: 'Workflows import only types from gateway/; side effects go through proxyActivities.',
        },
      ],
      [
        ...forbiddenBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' })),
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
    ),
    direction(
      ['activities/**/*.ts'],
      [
        forbid(
          ['api', 'workers', 'sandbox', 'migrations', 'scripts', 'test'],
          'Activities import gateway/ and db/.',
        ),
        {
          ...workflowImplementations,
          message: 'Activities share types with workflows through contracts/<capability>.',
        },
      ],
    ),
    direction(
      ['api/**/*.ts'],
      [
        forbid(
          ['activities', 'workers', 'sandbox', 'migrations', 'scripts', 'test'],
          'The API imports gateway/, db/ and @temporalio/client.',
        ),
        {
          ...workflowImplementations,
          message: 'The API addresses workflows through contracts/<capability>, never their implementation.',
        },
        {
          group: ['@temporalio/worker', '@temporalio/activity'],
          message: 'The API starts and signals workflows; it runs none.',
        },
      ],
    ),
    direction(
      ['db/**/*.ts'],
      [
        forbid(
          ['gateway', 'activities', 'api', 'workers', 'sandbox', 'scripts', 'test'],
          'db/ is tables and queries.',
        ),
        {
          ...workflowImplementations,
          message: 'db/ shares types and transition tables with the other layers through contracts/.',
        },
        { group: ['@temporalio/*'], message: 'db/ knows nothing of Temporal.' },
      ],
    ),
    direction(
      ['workers/**/*.ts'],
      [forbid(['api', 'sandbox', 'migrations', 'scripts', 'test'], 'Workers run workflows and activities.')],
    ),
    direction(
      ['migrations/**/*.ts'],
      [
        forbid(
          [
            'gateway',
            'sandbox',
            'workflows',
            'activities',
            'workers',
            'api',
            'db',
            'scripts',
            'test',
            'platform',
          ],
          'A migration stands alone: it must run the same years later, whatever the code became.',
        ),
      ],
    ),
    direction(
      ['platform/**/*.ts'],
      [
        forbid(
          ['sandbox', 'workflows', 'activities', 'workers', 'api', 'db', 'migrations', 'scripts', 'test'],
          'platform/ serves the process folders; it imports only gateway/ facts.',
        ),
      ],
    ),
  ];
}
