import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Lint rules, including the dependency direction of ARCHITECTURE.md:
 * api -> domain -> (store, connectors, delivery) -> (lib, schemas). Nothing imports api; the
 * domain imports no HTTP framework or driver; connectors import neither the store nor each other.
 */
const layer = (group, message) => ['error', { patterns: [{ group, message }] }];

export default tseslint.config(
  { ignores: ['.tmp/**', 'dist/**', 'node_modules/**', 'data/**', 'web/**/dist/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['web/**/*.ts', 'web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
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
    files: ['src/channel-types/**/*.ts'],
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
    files: ['src/connectors/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(
        ['**/api/**', '**/domain/**', '**/store/**', '**/chat/**', '**/delivery/**'],
        'Connectors are stateless and know neither the store nor the domain.',
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
);
