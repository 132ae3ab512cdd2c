import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../errors/api-error';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/** A path parameter that must be a UUID: anything else is a type mismatch (400). */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isUuid(value)) throw invalidRequest(`${metadata.data ?? 'id'} must be a UUID, got "${value}"`);
    return value.toLowerCase();
  }
}
