import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Mounting a filesystem needs root; CI runs as root, a developer's machine usually does not. */
export const canMount = process.getuid?.() === 0;

/** A tmpfs of `sizeMb` at `dir`; owned like `like` (the OS user PostgreSQL runs as) and private, or root's and 0755. */
export function mountSmallFilesystem(dir: string, sizeMb: number, like?: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=${like ? '0700' : '0755'}`, 'tmpfs', dir]);
  if (like) {
    const owner = statSync(like);
    chownSync(dir, owner.uid, owner.gid);
  }
}

export function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Moves a directory's contents onto another filesystem and leaves a symbolic link (as initdb --waldir does). */
export function relocate(dir: string, target: string): void {
  if (!existsSync(target)) {
    const owner = statSync(dir);
    mkdirSync(target, { mode: 0o700 });
    chownSync(target, owner.uid, owner.gid);
  }
  execFileSync('cp', ['-a', `${dir}/.`, target]);
  rmSync(dir, { recursive: true, force: true });
  symlinkSync(target, dir);
}

/** Writes zeros into `dir` until its filesystem has no space left; returns the filler's path. */
export function fillUp(dir: string): string {
  const filler = join(dir, 'filler');
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd stops with "No space left on device": that is the point.
  }
  return filler;
}

export function freeSpace(filler: string): void {
  rmSync(filler, { force: true });
}
