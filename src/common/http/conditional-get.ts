/**
 * Whether an If-None-Match header names `etag` (RFC 9110 §13.1.2: weak comparison, `*` matches
 * any current representation). An absent header matches nothing.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const listed = (Array.isArray(header) ? header.join(',') : header).split(',').map(opaque);
  return listed.includes('*') || listed.includes(opaque(etag));
}
