import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { BootError } from '../boot/boot-failure';

/**
 * What the service's own role could do beyond its job: a superuser can switch the append-only
 * triggers off (`SET session_replication_role = replica`) and a table's owner can disable them,
 * after which ledger rows can be rewritten; the audit would notice only afterwards.
 */
export async function excessPrivileges(dataSource: DataSource): Promise<string[]> {
  const [row] = (await dataSource.query(`
    SELECT current_user AS role,
           (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
           (SELECT string_agg(c.relname, ', ' ORDER BY c.relname)
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ANY (current_schemas(false)) AND c.relkind IN ('r', 'p')
               AND pg_has_role(current_user, c.relowner, 'USAGE')) AS owned_tables`)) as {
    role: string;
    superuser: boolean;
    owned_tables: string | null;
  }[];
  const excess: string[] = [];
  if (row.superuser) excess.push(`role "${row.role}" is a superuser`);
  if (row.owned_tables) {
    const tables = row.owned_tables.split(', ');
    const named =
      tables.length > 3 ? `${tables.slice(0, 3).join(', ')} and ${tables.length - 3} more` : row.owned_tables;
    excess.push(`role "${row.role}" owns (or inherits the owner of) tables ${named}`);
  }
  return excess;
}

/**
 * An external DATABASE_URL with more power than the service needs: a warning, or in production a
 * refusal to start unless DATABASE_ALLOW_PRIVILEGED=true says the operator chose it.
 */
export async function checkServicePrivileges(
  dataSource: DataSource,
  production: boolean,
  allowPrivileged: boolean,
  logger: Logger,
): Promise<void> {
  const excess = await excessPrivileges(dataSource);
  if (excess.length === 0) return;
  const what = `${excess.join('; ')}, so it could disable the ledger's append-only triggers`;
  const fix = 'connect as a role that owns nothing (docs/database-roles.md)';
  if (production && !allowPrivileged) {
    throw new BootError('DATABASE_URL', `${what}; ${fix}, or set DATABASE_ALLOW_PRIVILEGED=true to accept it`);
  }
  logger.warn(`DATABASE_URL: ${what}; ${fix}`);
}
