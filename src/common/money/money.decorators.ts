import Big from 'big.js';
import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationArguments } from 'class-validator';
import { JsonNumberText } from './json-body';
import { formatMoney, Money, MoneyFormatError, parseMoney } from './money';

/** Why a money field could not be read; kept so the validator can report it. */
class UnreadableMoney {
  constructor(readonly reason: string) {}
}

/** Reads a JSON number (by its source text) or a numeric string into money. */
export function ToMoney(): PropertyDecorator {
  return Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    if (raw === undefined || raw === null) return raw;
    if (!(raw instanceof JsonNumberText) && typeof raw !== 'string')
      return new UnreadableMoney('must be a decimal number');
    try {
      return parseMoney(raw.toString());
    } catch (error) {
      return new UnreadableMoney(error instanceof MoneyFormatError ? error.message : 'must be a decimal number');
    }
  });
}

/** Money between min and max inclusive, checked on the value rounded to 4 places. */
export function IsMoney(limits: { min: string; max?: string }): PropertyDecorator {
  const min = new Money(limits.min);
  const max = limits.max === undefined ? undefined : new Money(limits.max);
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMoney',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => value instanceof Big && value.gte(min) && (max === undefined || value.lte(max)),
        defaultMessage: ({ value, property }: ValidationArguments) => {
          if (value instanceof UnreadableMoney) return `${property} ${value.reason}`;
          if (!(value instanceof Big)) return `${property} must be a decimal number`;
          if (value.lt(min)) return `${property} must be at least ${formatMoney(min)}`;
          return `${property} must be at most ${formatMoney(max!)}`;
        },
      },
    });
  };
}
