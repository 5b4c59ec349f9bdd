// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'dist/', 'imports/', '.cluster/', 'coverage/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests must never be skipped or focused.
      'no-restricted-properties': [
        'error',
        { object: 'describe', property: 'skip' },
        { object: 'describe', property: 'only' },
        { object: 'it', property: 'skip' },
        { object: 'it', property: 'only' },
        { object: 'it', property: 'todo' },
        { object: 'test', property: 'skip' },
        { object: 'test', property: 'only' },
        { object: 'test', property: 'todo' },
      ],
      'no-restricted-globals': ['error', 'xit', 'xdescribe', 'fit', 'fdescribe', 'xtest'],
    },
  },
);
