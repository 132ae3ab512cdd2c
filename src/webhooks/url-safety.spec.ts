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

  // Each IPv6 form that carries an IPv4 address, with a forbidden and an allowed address inside.
  it.each([
    ['IPv4-compatible', '::127.0.0.1', '::8.8.8.8'],
    ['IPv4-compatible, hex', '::7f00:1', '::808:808'],
    ['IPv4-mapped', '::ffff:169.254.169.254', '::ffff:93.184.215.14'],
    ['IPv4-translated', '::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8'],
    ['IPv4-translated, hex', '::ffff:0:a00:1', '::ffff:0:808:808'],
    ['NAT64 well-known prefix', '64:ff9b::127.0.0.1', '64:ff9b::8.8.8.8'],
    ['NAT64 well-known prefix, hex', '64:ff9b::c0a8:101', '64:ff9b::808:808'],
    ['NAT64 local-use prefix, /96 reading', '64:ff9b:1::10.0.0.1', '64:ff9b:1:808:8:808:8.8.8.8'],
    ['NAT64 local-use prefix, /48 reading', '64:ff9b:1:7f00:1:0:0:0', '64:ff9b:1:808:8:808:808:808'],
    ['6to4', '2002:7f00:1::1', '2002:808:808::1'],
    ['6to4, private', '2002:c0a8:101:0:0:0:0:1', '2002:5db8:d70e::1'],
    ['Teredo client (XOR)', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
    ['Teredo server', '2001:0:a00:1:8000:63bf:f7f7:f7f7', '2001:0:808:808:8000:63bf:f7f7:f7f7'],
  ])('judges the %s form by the IPv4 address inside: refuses %s, allows %s', (_form, refused, allowed) => {
    expect(isForbiddenAddress(refused)).toBe(true);
    expect(isForbiddenAddress(allowed)).toBe(false);
  });

  it('under the NAT64 local-use prefix, whose length the address does not tell, allows only when every reading is public', () => {
    // Read as a /96 this is 8.8.8.8, read as a /48 it is 0.0.0.0.
    expect(isForbiddenAddress('64:ff9b:1::8.8.8.8')).toBe(true);
  });

  it('judges the embedded IPv4 address in DNS answers at delivery too', async () => {
    const url = checkUrlShape('https://teredo.example/hooks', strict);
    const resolve = resolverOf({ 'teredo.example': ['2001:0:4136:e378:8000:63bf:80ff:fffe'] });
    await expect(vetDestination(url, strict, resolve)).rejects.toThrow(/2001:0:4136:e378:8000:63bf:80ff:fffe/);
  });

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
