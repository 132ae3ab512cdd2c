import { LedgerEntry } from '../ledger/ledger-entry.entity';
import { User } from '../users/user.entity';

/** Every entity the schema check compares against the migrated database. */
export const ENTITIES = [User, LedgerEntry];
