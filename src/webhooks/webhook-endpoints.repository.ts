import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';

export type EndpointStatus = 'ENABLED' | 'DISABLED';

/** An endpoint as the admin API shows it: never with its secret. */
export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  createdAt: Date;
}

/** pg_advisory_xact_lock key: one endpoint creation at a time across instances, so the count is exact. */
const ENDPOINT_CAP_LOCK_KEY = 7_240_002;

const COLUMNS = `reference_id AS id, url, events, description, status, created_at AS "createdAt"`;

/** The one way to webhook_endpoints. The secret is written here and read only by the delivery claim. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Inserts the endpoint unless `max` exist already (then null); creations queue on a lock so none slips past the cap. */
  async insertWithin(
    max: number,
    endpoint: { id: string; url: string; events: string[]; description: string | null; secret: string },
  ): Promise<EndpointRow | null> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [ENDPOINT_CAP_LOCK_KEY]);
      const { rows } = await client.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (reference_id, url, events, description, secret)
         SELECT $1, $2, $3, $4, $5 WHERE (SELECT count(*) FROM webhook_endpoints) < $6
         RETURNING ${COLUMNS}`,
        [endpoint.id, endpoint.url, endpoint.events, endpoint.description, endpoint.secret, max],
      );
      return rows[0] ?? null;
    });
  }

  async list(): Promise<EndpointRow[]> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints ORDER BY created_at DESC, id DESC`,
    );
    return rows;
  }

  async find(id: string): Promise<EndpointRow | null> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE reference_id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Deletes the endpoint and its deliveries, in one statement: nothing more is sent to it. */
  async delete(id: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ deleted: boolean }>(
      `WITH endpoint AS (DELETE FROM webhook_endpoints WHERE reference_id = $1 RETURNING id),
            deliveries AS (DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM endpoint))
       SELECT count(*) > 0 AS deleted FROM endpoint`,
      [id],
    );
    return rows[0].deleted;
  }

  /** The new secret signs every attempt from now on, retries of older events included. */
  async replaceSecret(id: string, secret: string): Promise<EndpointRow | null> {
    const { rows } = await this.pool.query<EndpointRow>(
      `UPDATE webhook_endpoints SET secret = $2 WHERE reference_id = $1 RETURNING ${COLUMNS}`,
      [id, secret],
    );
    return rows[0] ?? null;
  }
}
