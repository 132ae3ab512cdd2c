import { randomUUID } from 'node:crypto';
import { FewerIndexEntriesPerTransfer1764033000000 } from '../../migrations/1764033000000-fewer-index-entries-per-transfer';
import { migrateUpTo, withClient, withDatabaseBefore } from '../support/db';

const INDEXES = `SELECT indexname FROM pg_indexes WHERE tablename IN ('outbox_events', 'idempotency_keys') ORDER BY 1`;

describe('FewerIndexEntriesPerTransfer: deliveries name their event row', () => {
  it('gives each delivery written before it its event row, and drops the two indexes', async () => {
    await withDatabaseBefore(FewerIndexEntriesPerTransfer1764033000000, async (url) => {
      const eventId = randomUUID();
      const written = await withClient(url, async (db) => {
        const { rows } = await db.query<{ id: string }>(
          `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload)
           VALUES ($1, 'TransferCompleted', 'old.alice@bank', '{"old": true}') RETURNING id`,
          [eventId],
        );
        // As the fan-out wrote a delivery then: its event's id and time, no payload of its own.
        await db.query(
          `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, created_at)
           SELECT 1, event_id, event_type, created_at FROM outbox_events WHERE event_id = $1`,
          [eventId],
        );
        expect((await db.query(INDEXES)).rows.map((row) => row.indexname)).toEqual(
          expect.arrayContaining(['pk_idempotency_keys', 'uq_outbox_events_event_id']),
        );
        return rows[0].id;
      });

      await migrateUpTo(url, () => true);

      await withClient(url, async (db) => {
        const { rows } = await db.query<{ outbox_event_id: string; payload: string }>(
          `SELECT d.outbox_event_id, o.payload FROM webhook_deliveries d
           JOIN outbox_events o ON o.id = d.outbox_event_id AND o.created_at = d.created_at
           WHERE d.event_id = $1`,
          [eventId],
        );
        expect(rows).toEqual([{ outbox_event_id: written, payload: '{"old": true}' }]);
        const indexes = (await db.query(INDEXES)).rows.map((row) => row.indexname);
        expect(indexes).not.toContain('pk_idempotency_keys');
        expect(indexes).not.toContain('uq_outbox_events_event_id');
      });
    });
  }, 60_000);
});
