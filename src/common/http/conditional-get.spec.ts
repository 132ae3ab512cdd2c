import { ifNoneMatchHits } from './conditional-get';

describe('ifNoneMatchHits', () => {
  const etag = '"abc"';

  it.each([
    ['the same tag', '"abc"'],
    ['the tag in a list', '"x", "abc" ,"y"'],
    ['the weak form of the tag', 'W/"abc"'],
    ['a star', '*'],
  ])('matches %s', (_name, header) => {
    expect(ifNoneMatchHits(header, etag)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another tag', '"abd"'],
    ['the tag without quotes', 'abc'],
    ['an empty header', ''],
  ])('does not match %s', (_name, header) => {
    expect(ifNoneMatchHits(header, etag)).toBe(false);
  });
});
