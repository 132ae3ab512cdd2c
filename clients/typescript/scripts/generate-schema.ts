import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';

const BANNER =
  '// Generated from the OpenAPI document (/v3/api-docs) by `npm run client:generate`. Do not edit by hand.\n\n';

/** The TypeScript types of an OpenAPI document, formatted as the repository formats code. */
export async function generateSchemaSource(document: object, formatAs: string): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, { silent: true });
  const config = await prettier.resolveConfig(formatAs);
  return prettier.format(BANNER + astToString(ast), { ...config, filepath: formatAs });
}
