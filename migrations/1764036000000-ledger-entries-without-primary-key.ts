import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * pk_ledger_entries (id, created_at) costs every transfer two index entries, one per ledger entry
 * (about 150 bytes of WAL and 50 of index), and serves no read that needs it (issue 41). Its one
 * reader was the ledger page's cursor anchor, which found the cursor's entry by id in every
 * month's partition. A ledger cursor now carries its entry's created_at with its id, and the page
 * reads (user_id, created_at, id) from ix_ledger_entries_user_created, from the cursor's month
 * down (src/ledger/ledger-entries.repository.ts); a cursor issued without created_at is still
 * anchored through the same index, by the user's entries. Everything else reads entries by account,
 * by transaction or all at once.
 *
 * Ids stay unique without the key: they come from the identity column, GENERATED ALWAYS, and only
 * two writers set them, a restore of an archived month (the month's own ids, out of the live tables
 * while it is archived; the restored partition must equal its file row for row) and the large seed
 * (ids above the greatest one). down fails if rows sharing an id and created_at were written since.
 */
export class LedgerEntriesWithoutPrimaryKey1764036000000 implements MigrationInterface {
  name = 'LedgerEntriesWithoutPrimaryKey1764036000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "ledger_entries" DROP CONSTRAINT "pk_ledger_entries"`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "ledger_entries" ADD CONSTRAINT "pk_ledger_entries" PRIMARY KEY ("id", "created_at")`);
  }
}
