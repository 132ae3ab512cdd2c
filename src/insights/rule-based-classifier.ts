import Big from 'big.js';
import { SpendCategory, type SpendAssessment } from './spend-category';

/** Brand and unmistakable words count double; generic words once. */
interface Keywords {
  strong: string[];
  weak: string[];
}

const KEYWORDS: Record<SpendCategory, Keywords> = {
  [SpendCategory.FoodAndDining]: {
    strong: [
      'swiggy',
      'zomato',
      'restaurant',
      'dominos',
      "domino's",
      'pizza',
      'biryani',
      'mcdonalds',
      "mcdonald's",
      'kfc',
      'starbucks',
      'cafe',
      'dhaba',
      'bigbasket',
      'blinkit',
      'zepto',
      'groceries',
      'grocery',
      'kirana',
    ],
    weak: [
      'food',
      'lunch',
      'dinner',
      'breakfast',
      'chai',
      'tea',
      'coffee',
      'snacks',
      'meal',
      'canteen',
      'tiffin',
      'sweets',
      'bakery',
      'vegetables',
      'fruits',
    ],
  },
  [SpendCategory.Shopping]: {
    strong: [
      'amazon',
      'flipkart',
      'myntra',
      'ajio',
      'meesho',
      'nykaa',
      'croma',
      'reliance digital',
      'decathlon',
      'ikea',
      'shopping',
    ],
    weak: [
      'clothes',
      'shoes',
      'kurta',
      'saree',
      'dress',
      'electronics',
      'headphones',
      'mall',
      'order',
      'furniture',
      'gift',
    ],
  },
  [SpendCategory.Transportation]: {
    strong: ['uber', 'ola', 'rapido', 'irctc', 'metro card', 'fastag', 'petrol', 'diesel', 'indigo', 'redbus'],
    weak: ['auto', 'cab', 'taxi', 'metro', 'bus', 'train', 'fuel', 'parking', 'toll', 'flight', 'ride', 'travel'],
  },
  [SpendCategory.Utilities]: {
    strong: [
      'electricity',
      'bescom',
      'tneb',
      'msedcl',
      'broadband',
      'wifi',
      'lpg',
      'gas cylinder',
      'water bill',
      'jio',
      'airtel',
      'bsnl',
      'dth',
      'tata play',
      'postpaid',
    ],
    weak: ['bill', 'recharge', 'internet', 'water', 'gas', 'maintenance', 'society', 'mobile'],
  },
  [SpendCategory.Entertainment]: {
    strong: ['netflix', 'hotstar', 'prime video', 'spotify', 'bookmyshow', 'pvr', 'inox', 'youtube premium', 'concert'],
    weak: ['movie', 'movies', 'cinema', 'tickets', 'game', 'gaming', 'party', 'subscription', 'outing', 'match'],
  },
  [SpendCategory.Healthcare]: {
    strong: [
      'pharmacy',
      'pharmeasy',
      '1mg',
      'netmeds',
      'apollo',
      'hospital',
      'clinic',
      'doctor',
      'medicines',
      'medicine',
      'dentist',
    ],
    weak: ['medical', 'health', 'lab test', 'checkup', 'physio', 'chemist', 'consultation'],
  },
  [SpendCategory.Investments]: {
    strong: [
      'sip',
      'mutual fund',
      'zerodha',
      'groww',
      'upstox',
      'ppf',
      'nps',
      'fixed deposit',
      'stocks',
      'shares',
      'demat',
    ],
    weak: ['investment', 'invest', 'fd', 'gold', 'savings', 'lic', 'premium'],
  },
  [SpendCategory.Transfer]: {
    strong: ['rent', 'loan', 'repay', 'emi', 'pocket money', 'split'],
    weak: ['friend', 'family', 'mom', 'dad', 'brother', 'sister', 'share', 'return', 'borrowed', 'owe'],
  },
};

const LABELS: Record<SpendCategory, string> = {
  [SpendCategory.FoodAndDining]: 'food and dining',
  [SpendCategory.Shopping]: 'shopping',
  [SpendCategory.Transportation]: 'transportation',
  [SpendCategory.Utilities]: 'utilities',
  [SpendCategory.Entertainment]: 'entertainment',
  [SpendCategory.Healthcare]: 'healthcare',
  [SpendCategory.Investments]: 'investments',
  [SpendCategory.Transfer]: 'a personal transfer',
};

const TIPS: Record<SpendCategory, string> = {
  [SpendCategory.FoodAndDining]:
    'Delivery fees and surge pricing add up: set a weekly food budget and cook at home a few more evenings.',
  [SpendCategory.Shopping]:
    'Wait 48 hours before non-essential purchases and compare prices; keep shopping under a fixed monthly cap.',
  [SpendCategory.Transportation]:
    'Compare cab fares with metro or bus passes for regular routes; pooled rides cut commute costs noticeably.',
  [SpendCategory.Utilities]:
    'Set up autopay before the due date to avoid late fees, and review your plans yearly for cheaper tariffs.',
  [SpendCategory.Entertainment]:
    'Audit your subscriptions every quarter and cancel the ones you have not used in the last month.',
  [SpendCategory.Healthcare]:
    'Keep medical bills for tax deductions under section 80D and check whether generic medicines are available.',
  [SpendCategory.Investments]:
    'Good habit: keep SIPs running through market swings and review your asset allocation once a year.',
  [SpendCategory.Transfer]:
    'Record personal transfers and loans to friends so repayments are not forgotten; keep an emergency fund aside.',
};

/** Ties go to the category listed first: the more specific spending kinds before TRANSFER. */
const PRIORITY = Object.values(SpendCategory);
const LARGE_TRANSFER = new Big(10_000);

export interface ClassifiedTransaction {
  note: string | null;
  amount: Big;
  receiverUpiId: string;
}

/** The deterministic keyword classifier that answers whenever the AI model cannot. */
export function classifyByRules(transaction: ClassifiedTransaction): SpendAssessment {
  const text = normalise(transaction.note ?? '');
  const scored = PRIORITY.map((category) => ({ category, ...score(text, KEYWORDS[category]) }));
  const best = scored.reduce((top, next) => (next.points > top.points ? next : top));
  const amount = `₹${transaction.amount.toFixed(2)}`;

  if (best.points === 0) {
    const large = transaction.amount.gte(LARGE_TRANSFER);
    return {
      category: SpendCategory.Transfer,
      summary: `${amount} to ${transaction.receiverUpiId}${transaction.note ? ` ("${transaction.note}")` : ''}: no spending keyword matched, so it is treated as ${large ? 'a large' : 'a'} personal transfer.`,
      budgetingTip: TIPS[SpendCategory.Transfer],
      confidenceScore: large ? 0.55 : 0.4,
    };
  }
  return {
    category: best.category,
    summary: `${amount} to ${transaction.receiverUpiId} looks like ${LABELS[best.category]} (matched "${best.matched.join('", "')}").`,
    budgetingTip: TIPS[best.category],
    confidenceScore: Math.min(0.95, 0.6 + 0.15 * best.points),
  };
}

function normalise(note: string): string {
  return ` ${note
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')} `;
}

function score(text: string, keywords: Keywords): { points: number; matched: string[] } {
  const matched: string[] = [];
  let points = 0;
  for (const [words, weight] of [
    [keywords.strong, 2],
    [keywords.weak, 1],
  ] as const) {
    for (const word of words) {
      if (text.includes(` ${word} `) || text.includes(` ${word}s `)) {
        matched.push(word);
        points += weight;
      }
    }
  }
  return { points, matched };
}
