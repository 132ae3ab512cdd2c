import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Functions whose arguments or result change here: the files under src/outbox/sql make them again. */
const CHANGED_FUNCTIONS = [
  'outbox_messages()',
  'outbox_pending(integer)',
  'outbox_mark_published(bigint[], timestamptz[])',
];
const CHANGED_FUNCTION_NAMES = ['outbox_messages', 'outbox_pending', 'outbox_mark_published'];

/**
 * This transaction's snapshot, with its own transaction counted as still running: every event it
 * leaves pending (below) stays pending for the relay, and so does every event of a transaction
 * running meanwhile (those are in the snapshot's list already).
 */
const SNAPSHOT_WITHOUT_THIS_TRANSACTION = `
  WITH now AS (SELECT pg_current_snapshot() AS s, pg_current_xact_id() AS x)
  SELECT (least(pg_snapshot_xmin(s), x) || ':' || pg_snapshot_xmax(s) || ':' ||
          coalesce((SELECT string_agg(v::text, ',' ORDER BY v)
                    FROM (SELECT pg_snapshot_xip(s) AS v UNION SELECT x WHERE x < pg_snapshot_xmax(s)) AS running), '')
         )::pg_snapshot
  FROM now`;

/**
 * The outbox relay keeps its place instead of marking each event (issue 41: the per-row
 * "published" update was about 250 bytes of WAL per transfer: the new row version, its primary-key
 * entry, and a lock record whenever the new version went to another page).
 *
 * Each event records the transaction that wrote it (`xid`, its top-level transaction id). The relay
 * keeps one row, `outbox_relay_position`: `published`, a snapshot such that every event whose
 * transaction is visible in it has been published; and what it is publishing now (the events
 * visible in the snapshot `publishing` and not in `published`, in id order, done up to
 * `publishing_last_id`). Commit order is
 * what snapshots capture, so an event committed after another one is never published before it by
 * a later batch (src/outbox/sql/outbox_pending.sql says how one is read).
 *
 * Existing events: published ones get xid 1 (visible in every snapshot); unpublished ones get this
 * migration's transaction, which the first position counts as running, so the relay publishes them.
 * The constant default makes the new column without rewriting the table. `ix_outbox_events_xid`
 * replaces the pending index; building it reads every partition (about 2 s per 5 M events on the
 * development machine) and holds the outbox's writes meanwhile.
 */
export class OutboxRelayPosition1764038000000 implements MigrationInterface {
  name = 'OutboxRelayPosition1764038000000';

  async up(db: QueryRunner): Promise<void> {
    for (const fn of CHANGED_FUNCTIONS) await db.query(`DROP FUNCTION IF EXISTS ${fn}`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = ANY ($1)`, [CHANGED_FUNCTION_NAMES]);
    await db.query(`ALTER TABLE "outbox_events" ADD COLUMN "xid" xid8 NOT NULL DEFAULT '1'`);
    await db.query(`ALTER TABLE "outbox_events" ALTER COLUMN "xid" SET DEFAULT pg_current_xact_id()`);
    await db.query(`UPDATE "outbox_events" SET "xid" = pg_current_xact_id() WHERE "published_at" IS NULL`);
    await db.query(`CREATE INDEX "ix_outbox_events_xid" ON "outbox_events" ("xid")`);
    await db.query(`DROP INDEX "ix_outbox_events_pending"`);
    await db.query(`ALTER TABLE "outbox_events" DROP COLUMN "published_at"`);
    await db.query(`ALTER TABLE "outbox_events" DROP COLUMN "attempts"`);
    await db.query(`ALTER TABLE "outbox_events" DROP COLUMN "last_error"`);
    await db.query(`
      CREATE TABLE "outbox_relay_position" (
        "one" boolean PRIMARY KEY DEFAULT true CONSTRAINT "ck_outbox_relay_position_one" CHECK ("one"),
        "published" pg_snapshot NOT NULL,
        "publishing" pg_snapshot,
        "publishing_last_id" bigint,
        "publishing_max_id" bigint,
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`INSERT INTO "outbox_relay_position" ("published") (${SNAPSHOT_WITHOUT_THIS_TRANSACTION})`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const fn of ['outbox_messages()', 'outbox_pending(integer)', 'outbox_mark_published(bigint, boolean)']) {
      await db.query(`DROP FUNCTION IF EXISTS ${fn}`);
    }
    await db.query(`DROP FUNCTION IF EXISTS outbox_published(xid8, bigint)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = ANY ($1)`, [
      [...CHANGED_FUNCTION_NAMES, 'outbox_published'],
    ]);
    await db.query(`ALTER TABLE "outbox_events" ADD COLUMN "published_at" timestamptz`);
    await db.query(`ALTER TABLE "outbox_events" ADD COLUMN "attempts" integer NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE "outbox_events" ADD COLUMN "last_error" varchar(1000)`);
    await db.query(`
      UPDATE "outbox_events" o SET "published_at" = now(), "attempts" = 1
      FROM "outbox_relay_position" p WHERE pg_visible_in_snapshot(o."xid", p."published")`);
    await db.query(`CREATE INDEX "ix_outbox_events_pending" ON "outbox_events" ("id") WHERE "published_at" IS NULL`);
    await db.query(`DROP TABLE "outbox_relay_position"`);
    await db.query(`DROP INDEX "ix_outbox_events_xid"`);
    await db.query(`ALTER TABLE "outbox_events" DROP COLUMN "xid"`);
  }
}
