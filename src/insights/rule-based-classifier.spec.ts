import Big from 'big.js';
import { classifyByRules } from './rule-based-classifier';
import { SpendCategory } from './spend-category';

const {
  FoodAndDining: FOOD,
  Shopping: SHOP,
  Transportation: TRAVEL,
  Utilities: UTIL,
  Entertainment: FUN,
  Healthcare: HEALTH,
  Investments: INVEST,
  Transfer: TRANSFER,
} = SpendCategory;

const classify = (note: string | null, amount = '250') =>
  classifyByRules({ note, amount: new Big(amount), receiverUpiId: 'payee@okaxis' });

describe('rule-based spend classifier', () => {
  it.each([
    ['Swiggy order', FOOD],
    ['zomato dinner', FOOD],
    ['Lunch at office canteen', FOOD],
    ['Chai and samosa', FOOD],
    ["Domino's pizza friday", FOOD],
    ['Blinkit groceries', FOOD],
    ['Biryani party share', FOOD],
    ['Starbucks coffee', FOOD],
    ['Amazon order - headphones', SHOP],
    ['Flipkart big billion day', SHOP],
    ['Myntra kurta', SHOP],
    ['Diwali shopping at mall', SHOP],
    ['Nykaa lipstick', SHOP],
    ['Uber to airport', TRAVEL],
    ['Ola auto', TRAVEL],
    ['Rapido bike ride', TRAVEL],
    ['IRCTC train tickets to Pune', TRAVEL],
    ['Petrol fill up', TRAVEL],
    ['Metro card recharge', TRAVEL],
    ['FASTag toll', TRAVEL],
    ['Electricity bill October', UTIL],
    ['BESCOM bill', UTIL],
    ['Jio recharge', UTIL],
    ['Airtel broadband', UTIL],
    ['LPG gas cylinder', UTIL],
    ['Society maintenance', UTIL],
    ['Water bill', UTIL],
    ['Netflix subscription', FUN],
    ['Spotify premium family', FUN],
    ['Movie tickets PVR', FUN],
    ['BookMyShow concert', FUN],
    ['Hotstar for the match', FUN],
    ['Pharmacy - cough syrup', HEALTH],
    ['Apollo pharmacy medicines', HEALTH],
    ['Doctor consultation fee', HEALTH],
    ['1mg order', HEALTH],
    ['Dentist visit', HEALTH],
    ['SIP for November', INVEST],
    ['Mutual fund top-up', INVEST],
    ['Zerodha funds', INVEST],
    ['PPF yearly deposit', INVEST],
    ['Groww stocks', INVEST],
    ['Rent to a friend', TRANSFER],
    ['Rent for December', TRANSFER],
    ['Returning the money I borrowed', TRANSFER],
    ['Pocket money for Riya', TRANSFER],
    ['Loan repayment', TRANSFER],
  ])('%s -> %s', (note, category) => {
    expect(classify(note).category).toBe(category);
  });

  it('covers every category', () => {
    const notes = ['Swiggy', 'Amazon', 'Uber', 'Electricity bill', 'Netflix', 'Pharmacy', 'SIP', 'Rent'];
    expect(new Set(notes.map((note) => classify(note).category))).toEqual(new Set(Object.values(SpendCategory)));
  });

  it('is deterministic and explains itself', () => {
    const first = classify('Zomato dinner with team', '1200.5');
    expect(classify('Zomato dinner with team', '1200.5')).toEqual(first);
    expect(first.summary).toContain('₹1200.50');
    expect(first.summary).toContain('zomato');
    expect(first.budgetingTip.length).toBeGreaterThan(20);
    expect(first.confidenceScore).toBeGreaterThan(0.6);
    expect(first.confidenceScore).toBeLessThanOrEqual(1);
  });

  it('falls back to a personal transfer, more confident for large amounts', () => {
    const small = classify('for you', '300');
    const large = classify(null, '25000');
    expect([small.category, large.category]).toEqual([TRANSFER, TRANSFER]);
    expect(large.confidenceScore).toBeGreaterThan(small.confidenceScore);
    expect(small.confidenceScore).toBeGreaterThanOrEqual(0);
  });

  it('is more confident with stronger evidence', () => {
    expect(classify('Swiggy biryani dinner').confidenceScore).toBeGreaterThan(classify('dinner').confidenceScore);
  });
});
