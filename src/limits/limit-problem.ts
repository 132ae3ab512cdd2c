import { numericColumnJson } from '../common/money/numeric-text';

/** The stored limit-exceeded data (limits_exceeded.sql): amounts and counts as exact text. */
interface StoredLimit {
  name: string;
  max: string;
  used: string;
  remaining: string;
  resetsAt: string;
}

const AMOUNT_NAMES: Record<string, string> = {
  'daily-amount': 'daily amount limit',
  'daily-count': 'daily count limit',
  'new-user-amount': 'new-user amount limit',
};

function storedLimit(data: Record<string, unknown>): StoredLimit {
  return data.limit as StoredLimit;
}

/** The problem's `detail`: which limit, and when it resets. */
export function limitDetail(data: Record<string, unknown>): string {
  const limit = storedLimit(data);
  return (
    `This transfer would exceed the ${AMOUNT_NAMES[limit.name] ?? limit.name} of ${limit.max} ` +
    `(used ${limit.used}, remaining ${limit.remaining}); it resets at ${limit.resetsAt}`
  );
}

/** The problem's `limit` member: amounts as 4-decimal JSON numbers, counts as integers. */
export function limitMember(data: Record<string, unknown>): { limit: Record<string, unknown> } {
  const limit = storedLimit(data);
  const number = (text: string) => (limit.name === 'daily-count' ? JSON.rawJSON(text) : numericColumnJson(text));
  return {
    limit: {
      name: limit.name,
      max: number(limit.max),
      used: number(limit.used),
      remaining: number(limit.remaining),
      resetsAt: limit.resetsAt,
    },
  };
}
