// Helpers for the tensions and actors tests: lead users through the use cases, actors and tensions through REST.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { SEED_PASSWORD, systemCtx, unwrap, type client as makeClient } from './clients.js';
import { createUser, deactivateUser } from '../../server/application/users/users.js';

type Client = ReturnType<typeof makeClient>;

/** A user to lead tensions, through the use cases (a human gets the seed password; deactivated through deactivateUser). */
export async function insertUser(app: TestApp, opts: { name: string; status?: 'active' | 'deactivated'; type?: 'human' | 'agent' }) {
  const type = opts.type ?? 'human';
  const email = `${opts.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomUUID().slice(0, 8)}@test.example`;
  const user = unwrap(
    await createUser(app.deps, systemCtx(), { type, email, name: opts.name, ...(type === 'human' ? { password: SEED_PASSWORD } : {}) }),
    'seed lead',
  );
  if (opts.status === 'deactivated') unwrap(await deactivateUser(app.deps, systemCtx(), user.id), 'deactivate lead');
  return user.id;
}

export async function newActor(c: Client, name: string, type = 'organization'): Promise<string> {
  const res = await c.post('/actors', { name, type });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

export async function newTension(c: Client, body: Record<string, unknown>) {
  const res = await c.post('/tensions', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.tension as { id: string; version: number; [k: string]: any };
}

/** The tension's stream, oldest first, straight from the event store. */
export async function streamOf(app: TestApp, id: string): Promise<{ version: number; type: string; data: any; occurred_at: Date }[]> {
  return app.em().execute(`select version, type, data, occurred_at from domain_events where stream_type = 'tension' and stream_id = ? order by version`, [id]);
}

export async function projectionRow(app: TestApp, id: string) {
  const [row] = await app.em().execute(`select * from tensions where id = ?`, [id]);
  return row ?? null;
}
