import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Characters that render as nothing: whitespace, format characters (zero-width space and
 * joiners, BOM, soft hyphen), combining marks with no base, and the fillers and blanks
 * some scripts provide (Hangul fillers, Braille blank).
 */
const INVISIBLE = /[\p{White_Space}\p{Cf}\p{Cc}\p{M}\u115f\u1160\u3164\uffa0\u2800]/gu;

/** Bidirectional embeddings, overrides and isolates: they make a name display as something it is not. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;

/** Why a display text would mislead a reader, or undefined when it is fine. */
export function misleadingTextReason(value: string): string | undefined {
  if (BIDI_CONTROL.test(value)) return 'must not contain bidirectional override or isolate characters';
  if (value.replace(INVISIBLE, '') === '') return 'must contain visible characters';
  return undefined;
}

/** A display text (such as a person's name) that shows what it says: visible, without bidi tricks. */
export function IsVisibleText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isVisibleText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || misleadingTextReason(value) === undefined,
        defaultMessage: (args) =>
          `${args?.property} ${typeof args?.value === 'string' ? misleadingTextReason(args.value) : 'must be visible text'}`,
      },
    },
    options,
  );
}
