import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/access.decorators';
import { findRepoRoot } from '../common/repo-root';

const ROOT = findRepoRoot();

interface BuildInfo {
  app: { name: string; version: string; description: string };
  git: { commit: string };
  build: { time: string | null };
  runtime: { node: string };
}

/** Build and version facts, read once: package.json, the git commit (or GIT_COMMIT), the build's time. */
function readBuildInfo(): BuildInfo {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, string>;
  const main = join(ROOT, 'dist', 'src', 'main.js');
  return {
    app: { name: pkg.name, version: pkg.version, description: pkg.description },
    git: { commit: process.env.GIT_COMMIT ?? gitCommit() },
    build: { time: existsSync(main) ? statSync(main).mtime.toISOString() : null },
    runtime: { node: process.version },
  };
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

@ApiTags('Operations')
@Public()
@Controller('actuator')
export class InfoController {
  private readonly info = readBuildInfo();

  @Get('info')
  @ApiOperation({ summary: 'Name, version, git commit, build time and Node version' })
  getInfo(): BuildInfo {
    return this.info;
  }
}
