import { PeakDeliveryBudget } from './peak-delivery-budget';

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

  it('is off at 0', () => {
    const budget = new PeakDeliveryBudget(0, now);
    expect(budget.available(true)).toBe(Infinity);
    expect(budget.refillMs).toBe(0);
  });
});
