import { join, resolve } from 'node:path';

/** Where npm run archive writes and npm run audit -- --archive reads, unless told: DATA_DIR/archive. */
export const DEFAULT_ARCHIVE_DIR = join(resolve(process.env.DATA_DIR ?? './.data'), 'archive');

/** The arguments with `value` put after `option` where it stands last or before another option: a directory with a default. */
export function withDefaultValue(args: string[], option: string, value: string): string[] {
  return args.flatMap((arg, index) => {
    const next = args[index + 1];
    return arg === option && (next === undefined || next.startsWith('--')) ? [arg, value] : [arg];
  });
}
