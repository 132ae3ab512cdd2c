import NodeEnvironment from 'jest-environment-node';

/**
 * Jest's node environment, plus the process warnings raised while a test file runs, for
 * quiet-output.ts. A test file gets its own copy of `process` in which the real process's
 * 'warning' events never arrive, so they are collected here, outside it.
 */
export default class QuietEnvironment extends NodeEnvironment {
  private readonly warnings: string[] = [];
  private readonly onWarning = (warning: Error & { code?: string }) => {
    if (printedByNode(warning)) this.warnings.push(`${warning.name}: ${warning.message}`);
  };

  override async setup(): Promise<void> {
    await super.setup();
    this.global.processWarnings = this.warnings;
    process.on('warning', this.onWarning);
  }

  override async teardown(): Promise<void> {
    process.off('warning', this.onWarning);
    await super.teardown();
  }
}

// 'warning' events come also for what the flags keep off the output (package.json's
// --disable-warning=ExperimentalWarning, say): only what Node would print counts.
const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
const disabled = new Set(flags.flatMap((flag) => /^--disable-warning=(.+)$/.exec(flag)?.[1] ?? []));
const noWarnings = flags.includes('--no-warnings');

function printedByNode(warning: Error & { code?: string }): boolean {
  if (noWarnings || disabled.has(warning.name) || (warning.code !== undefined && disabled.has(warning.code)))
    return false;
  return !(warning.name === 'DeprecationWarning' && process.noDeprecation);
}
