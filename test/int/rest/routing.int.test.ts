// The REST router asks each area's routes only for paths that start with one of their first segments
// (server/rest/router.ts `onlyOnItsPaths`; issue 37: a rescore tried about 70 routes of other areas, 100
// layer matches a request). Routing is unchanged at its edges: Express matches paths case-insensitively and
// with or without a trailing slash, a path no route serves is 404, another method 405.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let tensionId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['*'] })).key);
  tensionId = (await newTension(c, { name: 'Routed', actorId: await newActor(c, 'Routing org') })).id;
});
afterAll(async () => {
  await app?.close();
});

describe('REST routing by first segment', () => {
  it('serves a path in any case and with a trailing slash, as Express does; 404 and 405 as before', async () => {
    for (const path of [
      '/tensions',
      '/TENSIONS',
      '/Tensions/',
      `/tensions/${tensionId}`,
      `/TENSIONS/${tensionId}/`,
      '/users',
      '/USERS/',
      '/actors',
      '/roles',
      '/Events',
      '/audit/',
      '/Webhooks',
    ])
      expect((await c.get(path)).status, path).toBe(200);
    expect((await c.post(`/Tensions/${tensionId}/RESCORE`, { score: 7 })).status).toBe(200);
    for (const path of ['/nothing', '/tension', '/tensionsx', '/', '/%74ensions']) {
      const res = await c.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.code, path).toBe('not_found');
    }
    const wrong = await c.del('/TENSIONS');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it("a rescore tries its own area's routes, not every area's; through the command lane, none", async () => {
    const Layer = createRequire(import.meta.url)('router/lib/layer.js') as { prototype: { match: (this: unknown, path: string) => unknown } };
    const match = Layer.prototype.match;
    let tried = 0;
    Layer.prototype.match = function (this: unknown, path: string) {
      tried++;
      return match.call(this, path);
    };
    const triedBy = async (path: string, score: number) => {
      tried = 0;
      expect((await c.post(path, { score })).status).toBe(200);
      return tried;
    };
    let viaExpress: number;
    let viaLane: number;
    try {
      // a query string is Express's to read: the command lane leaves such a request to it
      viaExpress = await triedBy(`/tensions/${tensionId}/rescore?through=express`, 8);
      viaLane = await triedBy(`/tensions/${tensionId}/rescore`, 9);
    } finally {
      Layer.prototype.match = match;
    }
    // the app's own layers, the REST router's, and the tension routes before rescore (100 before)
    expect(viaExpress).toBeGreaterThan(10);
    expect(viaExpress).toBeLessThan(50);
    // the plain command: the lane (server/http/command-lane.ts), no Express layer at all
    expect(viaLane).toBe(0);
  });
});
