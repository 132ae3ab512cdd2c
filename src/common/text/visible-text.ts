import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Characters that render as nothing: whitespace, format characters (zero-width space and
 * joiners, BOM, soft hyphen), combining marks with no base, and the fillers and blanks
 * some scripts provide (Hangul fillers, Braille blank).
 */
const INVISIBLE = /[\p{White_Space}\p{Cf}\p{Cc}\p{M}\u115f\u1160\u3164\uffa0\u2800]/gu;

/**
 * Bidirectional controls: embeddings, overrides and isolates, and the marks (LRM, RLM, ALM) that
 * reorder what follows them. They make a text display as something it is not.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** Why a display text would mislead a reader, or undefined when it is fine. */
export function misleadingTextReason(value: string, allowEmpty = false): string | undefined {
  if (BIDI_CONTROL.test(value)) return 'must not contain bidirectional override or isolate characters';
  if (allowEmpty && value === '') return undefined;
  if (value.replace(INVISIBLE, '') === '') return 'must contain visible characters';
  return undefined;
}

/**
 * A display text (a person's name, a note the other party reads) that shows what it says:
 * visible, without bidi tricks. `allowEmpty` keeps "" acceptable where the field always was
 * optional text (notes); whitespace or invisible characters alone are still refused.
 */
export function IsVisibleText(options?: ValidationOptions & { allowEmpty?: boolean }): PropertyDecorator {
  const allowEmpty = options?.allowEmpty ?? false;
  return ValidateBy(
    {
      name: 'isVisibleText',
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || misleadingTextReason(value, allowEmpty) === undefined,
        defaultMessage: (args) =>
          `${args?.property} ${typeof args?.value === 'string' ? misleadingTextReason(args.value, allowEmpty) : 'must be visible text'}`,
      },
    },
    options,
  );
}
