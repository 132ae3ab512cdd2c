/**
 * The IPv4 addresses an IPv6 address carries, by the forms that deliver to them: a host behind such
 * an address is the IPv4 host, so it must be judged by the IPv4 rules.
 */
export function embeddedIPv4Addresses(address: string): string[] {
  const words = ipv6Words(address);
  if (!words) return [];
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const last32 = [ipv4Of(words[6], words[7])];
  // ::a.b.c.d (IPv4-compatible) and ::ffff:a.b.c.d (IPv4-mapped)
  if (zeros(0, 5) && (words[5] === 0 || words[5] === 0xffff)) return last32;
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return last32;
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix, RFC 6052)
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return last32;
  // 64:ff9b:1::/48 (NAT64 local use, RFC 8215): the address sits where the network's prefix length puts it
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return rfc6052Candidates(words);
  // 2002:AABB:CCDD::/48 (6to4, RFC 3056)
  if (words[0] === 0x2002) return [ipv4Of(words[1], words[2])];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (Teredo, RFC 4380): the server, and the client obfuscated by XOR
  if (words[0] === 0x2001 && words[1] === 0) {
    return [ipv4Of(words[2], words[3]), ipv4Of(words[6] ^ 0xffff, words[7] ^ 0xffff)];
  }
  return [];
}

/** Under 64:ff9b:1::/48 the prefix may be /48, /56, /64 or /96 (RFC 6052 2.2): each place is judged. */
function rfc6052Candidates(words: number[]): string[] {
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  const at = (...indexes: number[]) => indexes.map((index) => bytes[index]).join('.');
  return [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), at(12, 13, 14, 15)];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** The eight 16-bit words of an IPv6 address (zone ID dropped, a dotted IPv4 tail read); undefined if it is not one. */
function ipv6Words(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : undefined;
}
