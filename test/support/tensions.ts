// Helpers for the tensions and actors tests: lead users by SQL, actors and tensions through REST.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { client as makeClient } from './clients.js';

type Client = ReturnType<typeof makeClient>;

/** A user row to lead tensions (the users API is built elsewhere). */
export async function insertUser(app: TestApp, opts: { name: string; status?: 'active' | 'deactivated'; type?: 'human' | 'agent' }) {
  const id = randomUUID();
  const now = new Date();
  await app.em().execute(
    `insert into users (id, type, email, name, status, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)`,
    [id, opts.type ?? 'human', `${id}@test.example`, opts.name, opts.status ?? 'active', now, now],
  );
  return id;
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
