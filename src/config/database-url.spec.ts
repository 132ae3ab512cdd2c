import { DatabaseUrlError, hostLabel, parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl (libpq multi-host URLs)', () => {
  it('gives each host a single-host connection string, in order, without target_session_attrs', () => {
    const { hosts } = parseDatabaseUrl(
      'postgres://svc:p%40ss@db1:5432,db2,[::1]:6432/payments?sslmode=disable&target_session_attrs=read-write',
    );
    expect(hosts.map((host) => [host.host, host.port, host.url])).toEqual([
      ['db1', 5432, 'postgres://svc:p%40ss@db1:5432/payments?sslmode=disable'],
      ['db2', undefined, 'postgres://svc:p%40ss@db2/payments?sslmode=disable'],
      ['[::1]', 6432, 'postgres://svc:p%40ss@[::1]:6432/payments?sslmode=disable'],
    ]);
    expect(hosts.map(hostLabel)).toEqual(['db1:5432', 'db2:5432', '[::1]:6432']);
  });

  it('reads a single-host URL as one host, unchanged', () => {
    const url = 'postgresql://u:p@127.0.0.1:5433/db';
    expect(parseDatabaseUrl(url).hosts).toEqual([{ host: '127.0.0.1', port: 5433, url }]);
  });

  it('accepts target_session_attrs=primary and refuses the kinds that take no writes', () => {
    expect(parseDatabaseUrl('postgres://h1,h2/db?target_session_attrs=primary').hosts).toHaveLength(2);
    expect(() => parseDatabaseUrl('postgres://h1,h2/db?target_session_attrs=standby')).toThrow(
      /target_session_attrs=standby is not supported: the service writes/,
    );
  });

  it.each([
    ['mysql://x@y/z', 'must use postgres: or postgresql:, got "mysql:"'],
    ['not a url', 'is not a valid URL'],
    ['postgres://u@h1:99999,h2/db', 'has a host "h1:99999"'],
    ['postgres://u@h1:54x/db', 'has a host "h1:54x"'],
  ])('refuses %s', (url, message) => {
    expect(() => parseDatabaseUrl(url)).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl(url)).toThrow(message);
  });
});
