// The canonical database function files ship beside the compiled code (dist/src/<module>/sql), for
// an image that holds the build alone; a checkout applies them from src/.
import { cpSync, existsSync, readdirSync } from 'node:fs';

for (const folder of readdirSync('src')) {
  if (existsSync(`src/${folder}/sql`)) cpSync(`src/${folder}/sql`, `dist/src/${folder}/sql`, { recursive: true });
}
