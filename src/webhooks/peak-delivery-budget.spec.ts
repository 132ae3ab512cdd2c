import { PeakDeliveryBudget } from './peak-delivery-budget';

const arriving = (arrivalsPerSecond: number, lateMs = 0) => ({ arrivalsPerSecond, lateMs });

describe('PeakDeliveryBudget', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000));

  it('limits nothing while the money path is not busy', () => {
    const budget = new PeakDeliveryBudget(100, now);
    budget.spend(1000);
    expect(budget.available(false)).toBe(Infinity);
  });

  it('while busy, allows a fifth of a second of the rate at once, then the rate, half a bucket at a time', () => {
    const budget = new PeakDeliveryBudget(100, now);
    expect(budget.available(true)).toBe(20);
    budget.spend(20);
    expect(budget.available(true)).toBe(0);
    expect(budget.refillMs).toBe(100);
    clock += 50;
    expect(budget.available(true)).toBe(0);
    clock += 50;
    expect(budget.available(true)).toBe(10);
    clock += 10_000;
    expect(budget.available(true)).toBe(20);
  });

  it('refills while the path is quiet, so a new peak starts with a full bucket and no more', () => {
    const budget = new PeakDeliveryBudget(100, now);
    budget.spend(20);
    clock += 60_000;
    expect(budget.available(false)).toBe(Infinity);
    expect(budget.available(true)).toBe(20);
  });

  it('while busy, refills at 1.2 times the arrival rate once that is above the floor', () => {
    const budget = new PeakDeliveryBudget(100, now);
    expect(budget.available(true, arriving(50))).toBe(20);
    expect(budget.rate).toBe(100);
    budget.spend(20);
    clock += 1000;
    expect(budget.available(true, arriving(500))).toBe(120); // a fifth of a second at 600 per second
    expect(budget.rate).toBe(600);
    let started = 0;
    for (let step = 0; step < 100; step++) {
      clock += 100;
      const allowed = budget.available(true, arriving(500));
      budget.spend(allowed);
      started += allowed;
    }
    // Ten seconds at 500 arrivals per second: 6,000 starts plus the full bucket, more than the 5,000 that arrived.
    expect(started).toBeGreaterThanOrEqual(6_000);
    expect(started).toBeLessThanOrEqual(6_000 + 120);
  });

  it('under sustained load, raises the rate in proportion to how late deliveries are claimed', () => {
    const budget = new PeakDeliveryBudget(100, now);
    budget.available(true, arriving(500, 0));
    expect(budget.rate).toBe(600);
    budget.available(true, arriving(500, 2_500));
    expect(budget.rate).toBe(900);
    budget.available(true, arriving(500, 10_000));
    expect(budget.rate).toBe(1800);
  });

  it('holds a burst to the floor however late it runs: lateness counts only once arrivals outpace the floor', () => {
    const budget = new PeakDeliveryBudget(100, now);
    budget.available(true, arriving(50, 60_000));
    expect(budget.rate).toBe(100);
  });

  it('falls back to the floor when arrivals slow down', () => {
    const budget = new PeakDeliveryBudget(100, now);
    budget.available(true, arriving(1000));
    expect(budget.rate).toBe(1200);
    budget.available(true, arriving(10));
    expect(budget.rate).toBe(100);
    clock += 10_000;
    expect(budget.available(true, arriving(10))).toBe(20);
  });

  it('is off at 0', () => {
    const budget = new PeakDeliveryBudget(0, now);
    expect(budget.available(true)).toBe(Infinity);
    expect(budget.available(true, arriving(500))).toBe(Infinity);
    expect(budget.refillMs).toBe(0);
  });
});
