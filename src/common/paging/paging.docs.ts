import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiQuery, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/** page, size and cursor on a list that offers both offset and cursor paging. */
export function ApiListQueries(): MethodDecorator {
  return applyDecorators(
    ApiQuery({ name: 'page', required: false, type: 'integer', example: 0, description: 'Offset paging, 0-based' }),
    ApiQuery({ name: 'size', required: false, type: 'integer', example: 10, description: '1 to 100' }),
    ApiQuery({
      name: 'cursor',
      required: false,
      type: 'string',
      description:
        'Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). ' +
        'Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page.',
    }),
  );
}

/** The page envelope of a list with both kinds of paging. */
export function ApiListPageResponse(item: Type<unknown>): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(item),
    ApiResponse({
      status: 200,
      description:
        'One page. With page (or neither parameter): the full offset envelope plus nextCursor. ' +
        'With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth).',
      schema: {
        type: 'object',
        required: ['content', 'size', 'first', 'last', 'nextCursor'],
        properties: {
          content: { type: 'array', items: { $ref: getSchemaPath(item) } },
          page: { type: 'integer', example: 0, description: 'Offset pages only' },
          size: { type: 'integer', example: 10 },
          totalElements: { type: 'integer', example: 25, description: 'Offset pages only' },
          totalPages: { type: 'integer', example: 3, description: 'Offset pages only' },
          first: { type: 'boolean', example: true },
          last: { type: 'boolean', example: false },
          nextCursor: {
            type: 'string',
            nullable: true,
            example: 'eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0',
            description: 'Pass as cursor to read the next page; null on the last page',
          },
        },
      },
    }),
  );
}
