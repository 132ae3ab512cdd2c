import { checkUrlShape, isForbiddenAddress, type Resolver, UnsafeUrlError, vetDestination } from './url-safety';

const strict = { allowHttp: false, allowPrivateNetworks: false };
const resolverOf =
  (answers: Record<string, string[]>): Resolver =>
  async (host) =>
    (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook URL safety', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'fd12::1',
    'fe80::1',
    'ff02::1',
    '64:ff9b::a00:1',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );

  it('checks every address a name resolves to, not only the first', async () => {
    const url = checkUrlShape('https://mixed.example/hooks', strict);
    const resolve = resolverOf({ 'mixed.example': ['93.184.215.14', '10.0.0.7'] });
    await expect(vetDestination(url, strict, resolve)).rejects.toThrow(/10\.0\.0\.7/);
  });

  it('vets the answer of each resolution: a name rebound to loopback after creation is refused', async () => {
    const answers = [['93.184.215.14'], ['127.0.0.1']];
    const rebinding: Resolver = async () => answers.shift()!.map((address) => ({ address, family: 4 }));
    const url = checkUrlShape('https://rebind.example/hooks', strict);
    await expect(vetDestination(url, strict, rebinding)).resolves.toEqual({ address: '93.184.215.14', family: 4 });
    await expect(vetDestination(url, strict, rebinding)).rejects.toThrow(UnsafeUrlError);
  });

  it('lets the development switches through, and only them', async () => {
    expect(() => checkUrlShape('http://hooks.example/x', strict)).toThrow('must use https');
    expect(checkUrlShape('http://hooks.example/x', { ...strict, allowHttp: true }).protocol).toBe('http:');
    expect(() => checkUrlShape('ftp://hooks.example/x', { ...strict, allowHttp: true })).toThrow(
      'must use https or http',
    );
    const url = checkUrlShape('https://localhost/x', strict);
    const local = resolverOf({ localhost: ['127.0.0.1'] });
    await expect(vetDestination(url, strict, local)).rejects.toThrow(/loopback/);
    await expect(vetDestination(url, { ...strict, allowPrivateNetworks: true }, local)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('refuses a name that does not resolve', async () => {
    const url = checkUrlShape('https://nowhere.invalid/x', strict);
    await expect(vetDestination(url, strict, resolverOf({}))).rejects.toThrow('does not resolve');
  });
});
