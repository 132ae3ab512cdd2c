import { invalidRequest, ValidationError } from '../errors/api-error';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest<SortKey extends string = string> {
  page: number;
  size: number;
  sortBy: SortKey;
}

export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
}

type Query = Record<string, unknown> | undefined;

export type PageBounds = Omit<PageRequest, 'sortBy'>;

/**
 * Reads page and size. A value that is not an integer is a type mismatch (400);
 * an integer out of range is a validation failure (422).
 */
export function readPageBounds(query: Query): PageBounds {
  return readPaging(query, {});
}

/** As readPageBounds, plus sortBy from a fixed allow-list (anything else is 422). */
export function readPageRequest<SortKey extends string>(
  query: Query,
  sort: { allowed: readonly SortKey[]; fallback: SortKey },
): PageRequest<SortKey> {
  const sortBy = (single(query, 'sortBy') ?? sort.fallback) as SortKey;
  const errors: Record<string, string> = {};
  if (!sort.allowed.includes(sortBy)) errors.sortBy = `sortBy must be one of: ${sort.allowed.join(', ')}`;
  return { ...readPaging(query, errors), sortBy };
}

function readPaging(query: Query, errors: Record<string, string>): PageBounds {
  const page = readInteger(query, 'page', 0);
  const size = readInteger(query, 'size', DEFAULT_PAGE_SIZE);
  if (page < 0) errors.page = 'page must not be less than 0';
  if (size < 1) errors.size = 'size must not be less than 1';
  if (size > MAX_PAGE_SIZE) errors.size = `size must not be greater than ${MAX_PAGE_SIZE}`;
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Invalid paging parameters');
  return { page, size };
}

export function toPage<T>(content: T[], request: PageBounds, totalElements: number): Page<T> {
  const totalPages = Math.ceil(totalElements / request.size);
  return {
    content,
    page: request.page,
    size: request.size,
    totalElements,
    totalPages,
    first: request.page === 0,
    last: request.page >= totalPages - 1,
  };
}

function single(query: Query, name: string): string | undefined {
  const value = query?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once`);
  return value;
}

function readInteger(query: Query, name: string, fallback: number): number {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d{1,9}$/.test(raw.trim())) throw invalidRequest(`${name} must be an integer, got "${raw}"`);
  return Number(raw.trim());
}
