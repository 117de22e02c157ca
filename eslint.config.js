// Type-aware linting for every TypeScript file we ship or test: server, schema, migrations, tests, bench
// and the admin app (with the React hooks rules). `npm run lint`; CI runs it.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'admin-web/dist/**', 'admin-web/src/gql/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'vitest.config.ts', 'bench/servers/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // express 5 and React both accept async handlers; a floating promise elsewhere is still an error
      // MikroORM migrations, MCP handlers and OpenTelemetry exporters implement promise-returning
      // interfaces; an `async` method without `await` there is the interface's shape, not a smell
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
    },
  },
  {
    // Tests and benchmarks read JSON answers (typed `any` by design) and assert on them: the `no-unsafe-*`
    // family would only ask for casts that prove nothing. Everything else applies to them as to the server.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['admin-web/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
    // `const { t } = useI18n()` and urql's `[result, run] = useMutation()` are plain functions, not methods
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
