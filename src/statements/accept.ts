/**
 * Whether the Accept header prefers text/csv to JSON. A tie goes to CSV, the type named
 * explicitly; no Accept header (or one that names neither) means JSON.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  let csv = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const qParam = params.find((param) => param.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/csv') csv = Math.max(csv, q);
    if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, q);
  }
  return csv > 0 && csv >= json;
}
