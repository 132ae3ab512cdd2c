/** One server of a DATABASE_URL, as written (`port` undefined: pg's default, 5432). */
export interface DatabaseHost {
  host: string;
  port: number | undefined;
  /** A single-host connection string for pg: the URL with only this host. */
  url: string;
}

/** A DATABASE_URL in libpq's form, one or several hosts; the service connects only to a writable one. */
export interface DatabaseTarget {
  hosts: DatabaseHost[];
}

export class DatabaseUrlError extends Error {}

const NOT_A_URL = 'is not a valid URL (postgres://user:password@host1:port1,host2:port2/database)';

// The service writes, so only the session kinds that accept writes make sense for it.
const WRITABLE_SESSION_ATTRS = ['read-write', 'primary'];

// scheme, user info, host list, path, query. The host list is what WHATWG's URL refuses.
const URL_SHAPE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/i;
const HOST_SHAPE = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i;

/**
 * Reads `postgres://user:pass@h1:5432,h2,h3:6432/db?target_session_attrs=read-write` (libpq's
 * multi-host form; node-postgres reads one host only). Each host gets a connection string of its
 * own; `target_session_attrs` is consumed here, because pg would ignore it.
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(raw.trim())?.[1].toLowerCase();
  if (scheme && scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new DatabaseUrlError(`must use postgres: or postgresql:, got "${scheme}"`);
  }
  const match = URL_SHAPE.exec(raw.trim());
  if (!match) throw new DatabaseUrlError(NOT_A_URL);
  const [, prefixScheme, userInfo, hostList, path = '', query = ''] = match;
  const params = query.split('&').filter((param) => param !== '');
  const attrs = params.find((param) => param.startsWith('target_session_attrs='))?.split('=')[1];
  if (attrs !== undefined && !WRITABLE_SESSION_ATTRS.includes(decodeURIComponent(attrs))) {
    throw new DatabaseUrlError(
      `target_session_attrs=${attrs} is not supported: the service writes, so it connects only to a ` +
        `writable server (read-write or primary, the default)`,
    );
  }
  const kept = params.filter((param) => !param.startsWith('target_session_attrs='));
  const tail = `${path}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
  const prefix = `${prefixScheme}${userInfo === undefined ? '' : `${userInfo}@`}`;
  const hosts = hostList.split(',').map((spec) => parseHost(spec, prefix, tail));
  return { hosts };
}

function parseHost(spec: string, prefix: string, tail: string): DatabaseHost {
  if (spec === '') return { host: 'localhost', port: undefined, url: `${prefix}${tail}` };
  const match = HOST_SHAPE.exec(spec);
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || (port !== undefined && (port < 1 || port > 65535))) {
    throw new DatabaseUrlError(`has a host "${spec}" that is not host, host:port or [ipv6]:port`);
  }
  const url = `${prefix}${spec}${tail}`;
  try {
    new URL(url);
  } catch {
    throw new DatabaseUrlError(NOT_A_URL);
  }
  return { host: match[1], port, url };
}

/** `host:port` for logs and boot messages; never the credentials. */
export function hostLabel(host: Pick<DatabaseHost, 'host' | 'port'>): string {
  return `${host.host}:${host.port ?? 5432}`;
}
