// Usage: node clients/typescript/scripts/regenerate.mjs [document URL, default http://localhost:8080/v3/api-docs]
import console from 'node:console';
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { generateSchemaSource } from './generate-schema.ts';

const url = process.argv[2] ?? 'http://localhost:8080/v3/api-docs';
const target = fileURLToPath(new URL('../src/openapi.ts', import.meta.url));
const response = await globalThis.fetch(url);
if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
await writeFile(target, await generateSchemaSource(await response.json(), target));
console.log(`Wrote ${target} from ${url}`);
