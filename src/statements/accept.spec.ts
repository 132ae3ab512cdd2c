import { prefersCsv } from './accept';

describe('prefersCsv', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['application/json', false],
    ['*/*', false],
    ['text/csv', true],
    ['Text/CSV; charset=utf-8', true],
    ['text/csv, application/json', true],
    ['application/json, text/csv;q=0.5', false],
    ['text/csv;q=0.9, */*;q=0.1', true],
    ['text/csv;q=0', false],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersCsv(accept)).toBe(expected);
  });
});
