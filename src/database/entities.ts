import { TransactionInsight } from '../insights/transaction-insight.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { LedgerEntry } from '../ledger/ledger-entry.entity';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { Transaction } from '../transactions/transaction.entity';
import { User } from '../users/user.entity';

/** Every entity the schema check compares against the migrated database. */
export const ENTITIES = [User, LedgerEntry, Transaction, IdempotencyKey, OutboxEvent, TransactionInsight];
