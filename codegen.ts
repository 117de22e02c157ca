// GraphQL codegen: types for the admin web app's operations, from the printed schema.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['admin-web/src/**/*.{ts,tsx}', '!admin-web/src/gql/**/*'],
  ignoreNoDocuments: true,
  generates: {
    'admin-web/src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        enumsAsTypes: true,
        useTypeImports: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
