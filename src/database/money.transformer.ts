import type Big from 'big.js';
import type { ColumnOptions } from 'typeorm';
import { formatMoney, Money } from '../common/money/money';

/** numeric(19,4) mapped to big.js both ways; pg returns numeric as text, so nothing passes through a float. */
export function moneyColumn(options: ColumnOptions = {}): ColumnOptions {
  return {
    type: 'numeric',
    precision: 19,
    scale: 4,
    transformer: {
      to: (value: Big | null | undefined) => (value == null ? value : formatMoney(value)),
      from: (value: string | null) => (value == null ? value : new Money(value)),
    },
    ...options,
  };
}
