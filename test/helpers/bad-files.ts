import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// What the tests of the file writer need of the bad day: a real full disk, and device nodes of their own.

/** A small file system of its own that a test fills up: a real full disk, on a private tmpfs. */
export interface FullDisk {
  dir: string;
  /** Frees the room the filler took, so that writes work again. */
  free(): void;
  unmount(): void;
}

/** Whether this machine lets a test mount a tmpfs (root with the right to mount, as CI here is): tried once, for real. */
export function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'whsvc-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of `sizeKb` under `parent` and fills it, but for `leaveBytes`, with one filler file. */
export function fullDisk(parent: string, sizeKb = 256, leaveBytes = 0): FullDisk {
  const dir = join(parent, `full-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0755`, 'tmpfs', dir]);
  const filler = join(dir, '.filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  if (leaveBytes > 0) {
    // Room for `leaveBytes` more: the filler cut down by that much, in whole pages.
    truncateSync(filler, Math.max(0, statSync(filler).size - Math.ceil(leaveBytes / 4096) * 4096));
  }
  return {
    dir,
    free: () => unlinkSync(filler),
    unmount: () => {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this process may make a device node (root outside a user namespace): tried once, in a directory of its own. */
export function canMakeDeviceNodes(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'whsvc-mknod-'));
  try {
    execFileSync('mknod', [join(probe, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** A device of this test's own that behaves as /dev/full (every write fails with ENOSPC): `mknod FILE c 1 7` in `dir`. */
export function privateFullDevice(dir: string): string {
  const device = join(dir, 'full');
  execFileSync('mknod', ['-m', '0666', device, 'c', '1', '7']);
  return device;
}
