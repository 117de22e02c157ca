import { builder } from '../builder.js';

builder.queryField('health', (t) => t.string({ description: 'Always "ok": a cheap probe that the GraphQL endpoint is up.', resolve: () => 'ok' }));
