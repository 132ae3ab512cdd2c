import { join } from 'node:path';

/**
 * Every entity the DataSource maps and the schema check compares against the migrated database:
 * the `*.entity` files of the feature folders, found by name so that database/ imports no
 * feature (the features import database/). The same glob serves src/ (.ts) and dist/src/ (.js).
 */
export const ENTITIES = [join(__dirname, '..', '*', '*.entity.{ts,js}')];
