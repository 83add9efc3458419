// ESLint flat config: ESLint's and typescript-eslint's recommended rules, type-aware (through the
// project's tsconfig.json), with the promise rules that catch a forgotten `await` or an async
// function where a callback's result is ignored. `npm run lint`; .ci/run runs it before the tests.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // templates/ holds the files `svc new` writes into a user's folder: text here, not this project's code.
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'test/.tmp/**', 'bench/results/**', 'templates/**', '**/dist/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: { allowDefaultProject: ['vitest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // An `async` function without `await` is how a function keeps a promise-returning contract here.
      '@typescript-eslint/require-await': 'off',
      // `{}` is the "nothing yet" default of the typed-route and typed-call generics.
      '@typescript-eslint/no-empty-object-type': 'off',
      // svc turns unknown values into text on purpose (query strings, header values, log lines).
      '@typescript-eslint/no-base-to-string': 'off',
      // A leading underscore marks a parameter or binding kept for its position or to drop it from a rest.
      // It misreads an assertion that steers a generic's inference (`(await res.json()) as T`), and its fixes then fail typecheck.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read untyped JSON bodies and IPC messages, and spell out the shapes they expect.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // Two spaces are part of the output formats tests match (`svc doctor` rows).
      'no-regex-spaces': 'off',
    },
  },
  {
    // st.sessionState holds values of any type, as a page's scratch space.
    files: ['examples/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
)
