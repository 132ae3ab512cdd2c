import { ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError } from '../errors/api-error';

/** Body validation: 422 with a field → message map, unknown fields dropped. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flattenErrors(errors);
      return new ValidationError(Object.keys(fields).length > 0 ? fields : { body: 'must be a JSON object' });
    },
  });
}

function flattenErrors(errors: ClassValidatorError[], prefix = ''): Record<string, string> {
  const result: Record<string, string> = {};
  for (const error of errors) {
    const field = prefix + error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0) result[field] = messages[0];
    Object.assign(result, flattenErrors(error.children ?? [], `${field}.`));
  }
  return result;
}
