import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';

/** Times as milliseconds since the epoch (float8), as the in-memory copy keeps them. */
export interface RevokedTokenRow {
  jti: string;
  expiresMs: number;
}

export interface UserCutoffRow {
  upiId: string;
  atMs: number;
  expiresMs: number;
}

const IS_REVOKED = `
  SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $1) AS token,
         (SELECT (extract(epoch FROM revoked_before) * 1000)::float8 FROM user_token_revocations
          WHERE upi_id = lower($2)) AS "cutoffMs"`;

const INSERT_TOKEN = `
  INSERT INTO revoked_tokens (jti, upi_id, expires_at) VALUES ($1, lower($2), to_timestamp($3 / 1000.0))
  ON CONFLICT (jti) DO NOTHING`;

const UPSERT_USER_CUTOFF = `
  INSERT INTO user_token_revocations (upi_id, revoked_before, expires_at)
  VALUES (lower($1), to_timestamp($2 / 1000.0), to_timestamp($3 / 1000.0))
  ON CONFLICT (upi_id) DO UPDATE SET
    revoked_before = greatest(user_token_revocations.revoked_before, excluded.revoked_before),
    expires_at = greatest(user_token_revocations.expires_at, excluded.expires_at),
    updated_at = clock_timestamp()`;

const CLOCK = 'SELECT clock_timestamp() AS now';

// $1 the last read's clock; rows committed up to $2 seconds before it are read again.
const TOKENS_SINCE = `
  SELECT jti, (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresMs" FROM revoked_tokens
  WHERE revoked_at > $1::timestamptz - make_interval(secs => $2) AND expires_at > now()`;

const USER_CUTOFFS_SINCE = `
  SELECT upi_id AS "upiId", (extract(epoch FROM revoked_before) * 1000)::float8 AS "atMs",
         (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresMs"
  FROM user_token_revocations
  WHERE updated_at > $1::timestamptz - make_interval(secs => $2) AND expires_at > now()`;

const PURGE_TOKENS = 'DELETE FROM revoked_tokens WHERE expires_at < now()';
const PURGE_USER_CUTOFFS = 'DELETE FROM user_token_revocations WHERE expires_at < now()';

/** revoked_tokens and user_token_revocations: logouts, one token or every token of a user. */
@Injectable()
export class RevocationsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async find(jti: string, upiId: string): Promise<{ token: boolean; cutoffMs: number | null }> {
    const { rows } = await this.pool.query<{ token: boolean; cutoffMs: number | null }>(IS_REVOKED, [jti, upiId]);
    return rows[0];
  }

  async insertToken(jti: string, upiId: string, expiresAtMs: number): Promise<void> {
    await this.pool.query(INSERT_TOKEN, [jti, upiId, expiresAtMs]);
  }

  /** Moves the user's cutoff forward only: a late, older revocation cannot shorten a newer one. */
  async upsertUserCutoff(upiId: string, atMs: number, expiresAtMs: number): Promise<void> {
    await this.pool.query(UPSERT_USER_CUTOFF, [upiId, atMs, expiresAtMs]);
  }

  /** The database's clock (the next read's watermark), then what changed since `since`. */
  async changedSince(since: Date, overlapSeconds: number) {
    const { rows: clock } = await this.pool.query<{ now: Date }>(CLOCK);
    const { rows: tokens } = await this.pool.query<RevokedTokenRow>(TOKENS_SINCE, [since, overlapSeconds]);
    const { rows: users } = await this.pool.query<UserCutoffRow>(USER_CUTOFFS_SINCE, [since, overlapSeconds]);
    return { now: clock[0].now, tokens, users };
  }

  /** Expired revocations protect nothing (their tokens are refused as expired): the scheduled job deletes them. */
  async purgeExpired(): Promise<number> {
    const { rowCount: tokens } = await this.pool.query(PURGE_TOKENS);
    const { rowCount: users } = await this.pool.query(PURGE_USER_CUTOFFS);
    return (tokens ?? 0) + (users ?? 0);
  }
}
