import { ARRIVAL_WINDOW_MS, DeliveryArrivals } from './delivery-arrivals';

describe('DeliveryArrivals', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000_000));

  const sampleEverySecond = (arrivals: DeliveryArrivals, seconds: number, perSecond: number, from: number) => {
    let written = from;
    for (let second = 0; second < seconds; second++) {
      clock += 1000;
      written += perSecond;
      arrivals.note(written);
    }
    return written;
  };

  it('is 0 until it has two samples', () => {
    const arrivals = new DeliveryArrivals(now);
    expect(arrivals.perSecond).toBe(0);
    arrivals.note(500);
    expect(arrivals.perSecond).toBe(0);
  });

  it('shows a steady rate in full once it has lasted a whole window', () => {
    const arrivals = new DeliveryArrivals(now);
    arrivals.note(1_000);
    sampleEverySecond(arrivals, ARRIVAL_WINDOW_MS / 1000 + 5, 200, 1_000);
    expect(arrivals.perSecond).toBe(200);
  });

  it('counts a burst shorter than the window as its share of the window', () => {
    const arrivals = new DeliveryArrivals(now);
    arrivals.note(0);
    sampleEverySecond(arrivals, 2, 30, 0); // 60 deliveries in 2 s
    expect(arrivals.perSecond).toBe((60 * 1000) / ARRIVAL_WINDOW_MS);
  });

  it('forgets what is older than the window', () => {
    const arrivals = new DeliveryArrivals(now);
    arrivals.note(0);
    const written = sampleEverySecond(arrivals, 20, 500, 0);
    sampleEverySecond(arrivals, ARRIVAL_WINDOW_MS / 1000, 10, written);
    expect(arrivals.perSecond).toBe(10);
  });

  it('divides by the real span when samples are further apart than the window', () => {
    const arrivals = new DeliveryArrivals(now);
    arrivals.note(0);
    clock += 2 * ARRIVAL_WINDOW_MS;
    arrivals.note(2_000);
    expect(arrivals.perSecond).toBe((2_000 * 1000) / (2 * ARRIVAL_WINDOW_MS));
  });
});
