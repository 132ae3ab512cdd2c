import { type ArgumentMetadata, ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { invalidRequest, ValidationError } from '../errors/api-error';
import { findControlCharacters } from './control-characters';

/** What class-validator is asked: unknown fields dropped, a class without rules refused. */
const BODY_VALIDATION = {
  whitelist: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
} as const satisfies ValidatorOptions;

/**
 * Body validation: 422 with a field → message map, unknown fields dropped. A body that is
 * not a JSON object at all (an array, a string, null) is a type mismatch: 400.
 */
class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (metadata.type === 'body' && !isObject) throw invalidRequest('The request body must be a JSON object');
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      const prefix = metadata.type === 'param' ? (metadata.data ?? '') : '';
      const fields = findControlCharacters(value, prefix);
      if (fields.length > 0) {
        throw new ValidationError(Object.fromEntries(fields.map((f) => [f, 'must not contain control characters'])));
      }
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    transform: true,
    ...BODY_VALIDATION,
    exceptionFactory: (errors) => new ValidationError(flattenErrors(errors)),
  });
}

function flattenErrors(errors: ClassValidatorError[], prefix = ''): Record<string, string> {
  const result: Record<string, string> = {};
  for (const error of errors) {
    const field = prefix + error.property;
    const messages = Object.values(error.constraints ?? {});
    // class-validator lists constraints in reverse declaration order; the first-declared one
    // (e.g. "must be a string" before "must be shorter than 100") is the message that helps.
    if (messages.length > 0) result[field] = messages[messages.length - 1];
    Object.assign(result, flattenErrors(error.children ?? [], `${field}.`));
  }
  return result;
}
