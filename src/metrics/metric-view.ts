import type { MetricObjectWithValues, MetricValue } from 'prom-client';

export interface Measurement {
  statistic: 'COUNT' | 'TOTAL' | 'TOTAL_TIME' | 'VALUE';
  value: number;
}

/** One metric in Spring Boot Actuator's /actuator/metrics/{name} shape. */
export interface MetricView {
  name: string;
  description: string;
  baseUnit: string | null;
  measurements: Measurement[];
  availableTags: { tag: string; values: string[] }[];
}

export type TagFilter = Record<string, string>;

/** Histogram buckets and summary quantiles are dimensions of the series, not tags a caller filters by. */
const INTERNAL_LABELS = new Set(['le', 'quantile']);

/**
 * Sums the series that match every requested tag, as Spring does: COUNT and TOTAL(_TIME) for
 * histograms and summaries, COUNT for counters, VALUE for gauges. Tags already filtered on are
 * not offered again. Null when tags were given and no series matches them.
 */
export function toMetricView(
  metric: MetricObjectWithValues<MetricValue<string>>,
  filter: TagFilter,
): MetricView | null {
  const values = metric.values.filter((value) =>
    // Own labels only: a tag named after a prototype member (constructor, __proto__) matches nothing.
    Object.entries(filter).every(
      ([tag, wanted]) => Object.hasOwn(value.labels, tag) && String(value.labels[tag]) === wanted,
    ),
  );
  if (Object.keys(filter).length > 0 && values.length === 0) return null;
  const baseUnit = unitOf(metric.name);
  return {
    name: metric.name,
    description: metric.help,
    baseUnit,
    // The typings declare a numeric enum; at run time prom-client reports 'counter', 'histogram'...
    measurements: measurementsOf(String(metric.type), metric.name, values, baseUnit),
    availableTags: tagsOf(values, filter),
  };
}

function measurementsOf(
  type: string,
  name: string,
  values: MetricValue<string>[],
  baseUnit: string | null,
): Measurement[] {
  const sumOf = (suffix: string) =>
    values
      .filter((value) => (value as { metricName?: string }).metricName === `${name}${suffix}`)
      .reduce((total, value) => total + value.value, 0);
  const total = values.reduce((sum, value) => sum + value.value, 0);
  switch (type) {
    case 'histogram':
    case 'summary':
      return [
        { statistic: 'COUNT', value: sumOf('_count') },
        { statistic: baseUnit === 'seconds' ? 'TOTAL_TIME' : 'TOTAL', value: sumOf('_sum') },
      ];
    case 'counter':
      return [{ statistic: 'COUNT', value: total }];
    default:
      return [{ statistic: 'VALUE', value: total }];
  }
}

function tagsOf(values: MetricValue<string>[], filter: TagFilter): MetricView['availableTags'] {
  const tags = new Map<string, Set<string>>();
  for (const value of values) {
    for (const [tag, label] of Object.entries(value.labels)) {
      if (INTERNAL_LABELS.has(tag) || tag in filter || label === undefined) continue;
      if (!tags.has(tag)) tags.set(tag, new Set());
      tags.get(tag)!.add(String(label));
    }
  }
  return [...tags.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, labels]) => ({ tag, values: [...labels].sort() }));
}

function unitOf(name: string): string | null {
  const unit = /_(seconds|bytes)(_total)?$/.exec(name);
  return unit ? unit[1] : null;
}

/** `?tag=outcome:201&tag=replayed:false`, Spring's syntax; null when one is malformed. */
export function parseTagFilter(tags: string | string[] | undefined): TagFilter | null {
  // No prototype: a tag named __proto__ is a tag like any other, not a way to the prototype.
  const filter: TagFilter = Object.create(null) as TagFilter;
  for (const tag of tags === undefined ? [] : Array.isArray(tags) ? tags : [tags]) {
    const colon = tag.indexOf(':');
    if (colon <= 0) return null;
    filter[tag.slice(0, colon)] = tag.slice(colon + 1);
  }
  return filter;
}
