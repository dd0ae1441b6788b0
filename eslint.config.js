import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Lint rules, including the dependency direction of ARCHITECTURE.md:
 * api -> domain -> (store, connectors, delivery) -> (lib, schemas). Nothing imports api; the
 * domain imports no HTTP framework or driver; connectors import neither the store nor each other.
 */
const layer = (group, message) => ['error', { patterns: [{ group, message }] }];

/**
 * Database drivers, Kysely (its query builder and dialects) and the dialect implementations live
 * only in src/store; everything else reaches the database through the Store interface, and the
 * store alone opens connections (store/postgres/connections.ts). These rules use the
 * typescript-eslint twin of no-restricted-imports, so they add to each folder's layer rule above
 * instead of replacing it.
 */
const DATABASE = ['pg', 'pg-*', 'pg/*', 'better-sqlite3', 'kysely', 'kysely/*', '**/store/postgres/**', '**/store/sqlite/**'];
const CONNECTOR_LAYER = ['**/api/**', '**/domain/**', '**/store/**', '**/chat/**', '**/delivery/**'];
const CONNECTOR_LAYER_MESSAGE = 'Connectors are stateless and know neither the store nor the domain.';
const DATABASE_MESSAGE = 'Drivers and dialects live only in src/store: use the Store interface (store/store.ts).';

export default tseslint.config(
  { ignores: ['.tmp/**', 'dist/**', 'node_modules/**', 'data/**', 'web/**/dist/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['web/**/*.ts', 'web/**/*.tsx', 'web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Type-aware rules: a promise nobody awaits loses its error, and a switch over a union must name
    // every member (or end in a default). Each TypeScript file is read with its own tsconfig.json.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs the tests it is given and reports their failures; its promise is not the test's.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', 'fastify', 'fastify/*', '@fastify/*', 'pg', 'better-sqlite3', 'socket.io', '**/chat/**', '**/config.js'],
        'The domain holds the rules only: no HTTP, drivers, config or api imports.',
      ),
    },
  },
  {
    // The list of type modules (modules.ts, module.ts) and the registry derived from it (index.ts)
    // sit above the connectors: the only files here that see them.
    files: ['src/channel-types/**/*.ts'],
    ignores: ['src/channel-types/modules.ts', 'src/channel-types/module.ts', 'src/channel-types/index.ts'],
    rules: {
      'no-restricted-imports': layer(
        [
          '**/api/**',
          '**/domain/**',
          '**/store/**',
          '**/delivery/**',
          '**/files/**',
          '**/chat/**',
          '**/connectors/**',
          '!**/connectors/connector.js',
          '**/config.js',
        ],
        'Channel type definitions are data and pure rules: they import schemas, lib and the connector contract types only.',
      ),
    },
  },
  {
    files: ['src/store/**/*.ts', 'src/delivery/**/*.ts', 'src/files/**/*.ts'],
    rules: { 'no-restricted-imports': layer(['**/api/**', '**/domain/**', '**/chat/**', 'fastify'], 'store, delivery and files sit below the domain.') },
  },
  {
    // The store is below the workers: the queue runner and the task kinds use it, not the other way.
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', '**/domain/**', '**/chat/**', 'fastify', '**/queue/**', '**/delivery/**'],
        'The store sits below the domain and the workers.',
      ),
    },
  },
  {
    // The queue runner is generic: it knows task kinds only through queue/task.ts.
    files: ['src/queue/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', '**/domain/**', '**/chat/**', '**/connectors/**', '**/delivery/**', '**/files/**', 'fastify'],
        'The queue runner sits below the domain and names no task kind.',
      ),
    },
  },
  {
    files: ['src/connectors/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(CONNECTOR_LAYER, CONNECTOR_LAYER_MESSAGE),
    },
  },
  {
    // A connector's folder reaches another folder of src/connectors only by a relative path that
    // names it (`../<other>/` or `.../connectors/<other>/`); contract/ is the shared one. The
    // rule replaces the one above for these files, so it repeats the layer patterns.
    files: ['src/connectors/*/**/*.ts'],
    ignores: ['src/connectors/contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: CONNECTOR_LAYER, message: CONNECTOR_LAYER_MESSAGE },
            {
              regex: '^\\.\\./(?!contract/)[^./][^/]*/|(^|/)connectors/(?!contract/)[^/]+/',
              message: 'Connectors never import each other: shared code lives in src/connectors/*.ts, src/connectors/contract/ or src/lib.',
            },
          ],
        },
      ],
    },
  },
  {
    // A type's definition lives in its module folder (connectors/<type>/definition*), under the
    // rule of channel-types/: data and pure rules that import only lib, schemas, the shared parts of
    // channel-types and the connector contract's types, never the connector's own code.
    files: ['src/connectors/*/definition*.ts', 'src/connectors/*/definition/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(?!(\.\./)+(lib|schemas)/|(\.\./)+channel-types/(common|definition|domains-whitelist|ui)\.js$|(\.\./)+connectors/connector\.js$|\./[a-z-]+\.js$)\.{1,2}/`,
              message: 'Channel type definitions are data and pure rules: they import lib, schemas, channel-types and the connector contract types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // A definition.ts beside its connector's code names only its own definition files.
    files: ['src/connectors/*/definition*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(?!(\.\./)+(lib|schemas)/|(\.\./)+channel-types/(common|definition|domains-whitelist|ui)\.js$|(\.\./)+connectors/connector\.js$|\./definition)\.{1,2}/`,
              message: 'Channel type definitions are data and pure rules: they import lib, schemas, channel-types and the connector contract types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // The NLP engines sit beside the connectors: the training data and settings come in with each call
    // (drivers are refused by the rule for all of src below).
    files: ['src/nlp/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', '**/domain/**', '**/store/**', '**/connectors/**', '**/queue/**', '**/delivery/**', '**/chat/**', '**/files/**', '**/config.js'],
        'NLP engines import only lib, schemas and npm packages: never the store, the domain or the workers.',
      ),
    },
  },
  {
    files: ['src/lib/**/*.ts', 'src/schemas/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', '**/domain/**', '**/store/**', '**/connectors/**', '**/delivery/**', '**/chat/**'],
        'lib and schemas are the bottom layer.',
      ),
    },
  },
  {
    files: ['src/**/*.ts', 'sandbox/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx', 'web/**/*.js'],
    ignores: ['src/store/**'],
    rules: { '@typescript-eslint/no-restricted-imports': layer(DATABASE, DATABASE_MESSAGE) },
  },
  {
    // The metrics are the runtime's: the layers below tell them through callbacks it wires.
    files: [
      'src/domain/**/*.ts',
      'src/connectors/**/*.ts',
      'src/queue/**/*.ts',
      'src/delivery/**/*.ts',
      'src/files/**/*.ts',
      'src/lib/**/*.ts',
      'src/schemas/**/*.ts',
      'src/nlp/**/*.ts',
      'src/channel-types/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': layer(
        [...DATABASE, '**/operations/**', 'prom-client'],
        'Drivers live in src/store, the metrics in src/operations: take a callback the runtime wires instead.',
      ),
    },
  },
  {
    files: ['src/store/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': layer(['**/operations/**', 'prom-client'], 'The store knows nothing of the metrics.') },
  },
  {
    // The chat server, the stand-ins and the browser code know the store only as the Store interface.
    files: ['src/chat/**/*.ts', 'sandbox/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx', 'web/**/*.js'],
    rules: {
      '@typescript-eslint/no-restricted-imports': layer(
        [...DATABASE, '**/store/**', '!**/store/store.js', '**/operations/**', 'prom-client'],
        'Only the Store interface (store/store.ts) of src/store, and no driver or dialect.',
      ),
    },
  },
  {
    // Each connector contributes its own variables (its config.ts fragment); the runtime composes them.
    files: ['src/config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': layer(
        [...DATABASE, '**/connectors/**'],
        'config.ts names no platform: connectors contribute settings fragments, composed by runtime.ts (loadSettings).',
      ),
    },
  },
);
