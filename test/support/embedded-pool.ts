// The embedded databases a test worker keeps between its files (issue 31). Booting one costs about 2.7 s of
// CPU (the WebAssembly module, the migrated tarball unpacked into memory, PostgreSQL's start) against 0.05 s
// for a PostgreSQL `CREATE DATABASE … TEMPLATE`; the suite boots about 160. A database a file closes is
// instead put back as the migrated template left it, and the worker's next file gets it:
//
// - its session state goes (an open transaction rolled back, `DISCARD ALL`: settings, advisory locks,
//   prepared statements, temporary tables, LISTEN);
// - every table of the application's schemas is emptied in one `TRUNCATE … RESTART IDENTITY`, the rows
//   the migrations wrote (today only `mikro_orm_migrations`) are written back as they were, every
//   sequence is set back to its value, and the planner statistics a file's ANALYZE left are removed;
// - then its catalog is compared with the template's: tables, columns and defaults, constraints, indexes,
//   functions (their source), triggers (and whether enabled), privileges, roles, schemas, extensions,
//   per-database and per-role settings, server settings, prepared transactions, large objects, planner
//   statistics.
//   Any difference (a file that altered a table, replaced a function, disabled a trigger, set a database
//   default, created a role…) and the database is closed for good instead; the next file boots a new one.
//
// So a file sees what a freshly loaded template shows, or a fresh database: never another file's data or
// schema. A file that holds two databases at once gets two. At most IDLE_PER_KIND wait per worker.
import pg from 'pg';
import type { EmbeddedDatabase } from '../../server/persistence/embedded.js';

/** Databases kept idle per `maxConnections` (each holds its WebAssembly memory, ~200 MB). */
const IDLE_PER_KIND = 1;

const APP_SCHEMAS = `(select oid from pg_namespace where nspname not in ('pg_catalog', 'information_schema')
  and nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp\\_%')`;

/** Everything a file could change besides its rows; compared after each reset with the template's. */
const CATALOG_FINGERPRINT = `
select md5(string_agg(x, E'\\n' order by x)) as fingerprint from (
  select concat_ws(' ', 'class', c.oid::regclass, c.relkind, c.relpersistence, c.relowner::regrole, c.relacl, c.reloptions,
      c.relrowsecurity, c.relforcerowsecurity)
    from pg_class c where c.relnamespace in ${APP_SCHEMAS}
  union all
  select concat_ws(' ', 'column', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attisdropped,
      a.attgenerated, a.attidentity, pg_get_expr(d.adbin, d.adrelid), a.attacl)
    from pg_attribute a join pg_class c on c.oid = a.attrelid left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace in ${APP_SCHEMAS} and a.attnum > 0
  union all
  select concat_ws(' ', 'constraint', conrelid::regclass, conname, pg_get_constraintdef(oid), convalidated, condeferrable, condeferred)
    from pg_constraint where connamespace in ${APP_SCHEMAS}
  union all
  select concat_ws(' ', 'index', indexrelid::regclass, pg_get_indexdef(indexrelid), indisvalid, indisready, indislive)
    from pg_index i join pg_class c on c.oid = i.indexrelid where c.relnamespace in ${APP_SCHEMAS}
  union all
  select concat_ws(' ', 'function', p.oid::regprocedure, md5(p.prosrc), p.provolatile, p.prosecdef, p.proconfig, p.proacl, p.proowner::regrole)
    from pg_proc p where p.pronamespace in ${APP_SCHEMAS}
  union all
  select concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled, tgfoid::regprocedure, tgtype) from pg_trigger
  union all
  select concat_ws(' ', 'event trigger', evtname, evtenabled) from pg_event_trigger
  union all
  select concat_ws(' ', 'policy', polrelid::regclass, polname) from pg_policy
  union all
  select concat_ws(' ', 'rule', ev_class::regclass, rulename, ev_enabled)
    from pg_rewrite where ev_class in (select oid from pg_class where relnamespace in ${APP_SCHEMAS})
  union all
  select concat_ws(' ', 'role', rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolbypassrls, rolconfig) from pg_roles
  union all
  select concat_ws(' ', 'member', roleid::regrole, member::regrole) from pg_auth_members
  union all
  select concat_ws(' ', 'schema', nspname, nspowner::regrole, nspacl)
    from pg_namespace where nspname not like 'pg\\_temp\\_%' and nspname not like 'pg\\_toast\\_temp\\_%'
  union all
  select concat_ws(' ', 'extension', extname, extversion) from pg_extension
  union all
  select concat_ws(' ', 'database', datname, datallowconn, datconnlimit, datacl) from pg_database
  union all
  select concat_ws(' ', 'setting', setdatabase, setrole, setconfig) from pg_db_role_setting
  union all
  select concat_ws(' ', 'server', name, setting) from pg_settings where source not in ('default', 'session', 'client', 'override')
  union all
  select concat_ws(' ', 'default acl', defaclrole::regrole, defaclobjtype, defaclacl) from pg_default_acl
  union all
  select concat_ws(' ', 'prepared transactions', count(*)) from pg_prepared_xacts
  union all
  select concat_ws(' ', 'large objects', count(*)) from pg_largeobject_metadata
  union all
  select concat_ws(' ', 'statistics', count(*)) from pg_statistic where starelid in (select oid from pg_class where relnamespace in ${APP_SCHEMAS})
) catalog(x)`;

interface Template {
  fingerprint: string;
  /** every table of the application's schemas, quoted */
  tables: string[];
  /** the rows the migrations wrote: table, its insertable columns, the rows as JSON */
  rows: { table: string; columns: string; json: string }[];
  /** `setval` arguments of every sequence */
  sequences: { name: string; value: string; called: boolean }[];
}

let template: Template | undefined;
const idle = new Map<number, EmbeddedDatabase[]>();

/** Whether a kept database still takes a connection and answers it. */
async function answers(embedded: EmbeddedDatabase): Promise<boolean> {
  const client = clientOf(embedded);
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function clientOf(embedded: EmbeddedDatabase): pg.Client {
  const { host, port, user, dbName } = embedded.connection;
  return new pg.Client({ host, port, user, database: dbName });
}

async function readTemplate(client: pg.Client): Promise<Template> {
  const tables = (
    await client.query<{ name: string }>(
      `select c.oid::regclass::text as name from pg_class c where c.relkind in ('r', 'p') and c.relnamespace in ${APP_SCHEMAS} order by 1`,
    )
  ).rows.map((r) => r.name);
  const rows: Template['rows'] = [];
  for (const table of tables) {
    const { rows: found } = await client.query<{ json: string | null }>(`select json_agg(t)::text as json from ${table} t`);
    if (!found[0]?.json) continue;
    const { rows: columns } = await client.query<{ name: string }>(
      `select quote_ident(attname) as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      [table],
    );
    rows.push({ table, columns: columns.map((c) => c.name).join(', '), json: found[0].json });
  }
  const sequences = (
    await client.query<{ name: string; value: string; called: boolean }>(
      `select format('%I.%I', schemaname, sequencename) as name, coalesce(last_value, start_value)::text as value, last_value is not null as called from pg_sequences`,
    )
  ).rows;
  const { rows: printed } = await client.query<{ fingerprint: string }>(CATALOG_FINGERPRINT);
  return { fingerprint: printed[0].fingerprint, tables, rows, sequences };
}

/** Puts the database back as the template left it; false when its catalog differs (it must not be reused). */
async function reset(embedded: EmbeddedDatabase): Promise<boolean> {
  const client = clientOf(embedded);
  await client.connect();
  try {
    await client.query('rollback').catch(() => undefined);
    await client.query('discard all');
    if (!template) return false;
    await client.query('begin');
    // replica: no trigger fires (the append-only guards refuse TRUNCATE), no foreign key is checked on the way back
    await client.query(`set local session_replication_role = replica`);
    if (template.tables.length) await client.query(`truncate table ${template.tables.join(', ')} restart identity`);
    for (const { table, columns, json } of template.rows) {
      await client.query(`insert into ${table} (${columns}) overriding system value select ${columns} from json_populate_recordset(null::${table}, $1)`, [
        json,
      ]);
    }
    for (const s of template.sequences) await client.query('select setval($1::regclass, $2::bigint, $3)', [s.name, s.value, s.called]);
    await client.query(`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace in ${APP_SCHEMAS})`);
    await client.query('commit');
    const { rows } = await client.query<{ fingerprint: string }>(CATALOG_FINGERPRINT);
    return rows[0]?.fingerprint === template.fingerprint;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * An embedded database as the migrated template left it: one this worker's earlier files closed, or a new
 * one from `boot`. Its `close()` resets it and keeps it for the next file (or closes it when it cannot).
 */
export async function pooledEmbedded(maxConnections: number, boot: () => Promise<EmbeddedDatabase>): Promise<EmbeddedDatabase> {
  let kept = idle.get(maxConnections)?.pop();
  // one that stopped answering while it waited goes, and the file gets a new one (seen once in CI: the
  // next file's first connection to a kept database failed with EPIPE)
  if (kept && !(await answers(kept))) {
    await kept.close().catch(() => undefined);
    kept = undefined;
  }
  let embedded: EmbeddedDatabase;
  if (kept) embedded = kept;
  else {
    embedded = await boot();
    if (!template) {
      const client = clientOf(embedded);
      await client.connect();
      try {
        template = await readTemplate(client);
      } finally {
        await client.end();
      }
    }
  }
  let closed = false;
  return {
    connection: embedded.connection,
    async close() {
      if (closed) return;
      closed = true;
      const list = idle.get(maxConnections) ?? [];
      const reusable = list.length < IDLE_PER_KIND && (await reset(embedded).catch(() => false));
      if (!reusable) return embedded.close();
      list.push(embedded);
      idle.set(maxConnections, list);
    },
  };
}
