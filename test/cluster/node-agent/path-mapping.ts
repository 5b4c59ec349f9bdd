import { mkdirSync } from 'node:fs';
import { join, posix } from 'node:path';

/** One volume mount as the host sees it. */
export interface HostMount {
  /** Absolute path inside the container. */
  readonly mountPath: string;
  /** The host folder (or file, for a subPath) it maps to. */
  readonly hostPath: string;
  readonly readOnly: boolean;
}

/**
 * Maps container paths to host paths. Pods run as plain host processes, so every absolute path a container
 * would see under a volume mount has to be rewritten to the folder the node agent materialized for that volume;
 * paths outside every mount map to the container's private scratch root (for its working directory).
 */
export class PathMapping {
  private readonly mounts: HostMount[];
  private readonly patterns: Array<{ pattern: RegExp; hostPath: string }>;

  constructor(mounts: readonly HostMount[], private readonly scratchRoot: string) {
    // Longest mount path first, so /data/conf wins over /data.
    this.mounts = [...mounts].sort((a, b) => b.mountPath.length - a.mountPath.length);
    this.patterns = this.mounts.map((mount) => ({
      // A mount path inside text: not preceded by a path character (so /volumes/data is left alone, which also
      // makes rewriting idempotent) and followed by a separator, the end, or a non-path character.
      pattern: new RegExp(`(?<![\\w./-])${escapeRegExp(trimSlash(mount.mountPath))}(?=/|$|[^\\w.-])`, 'g'),
      hostPath: mount.hostPath,
    }));
  }

  /** The host path of an absolute container path; outside every mount, a path under the scratch root. */
  toHostPath(containerPath: string): string {
    const normalized = posix.normalize(containerPath);
    // Already rewritten (arguments are rewritten before they are interpreted): keep it, so mapping is idempotent.
    if (this.isHostPath(normalized)) return normalized;
    for (const mount of this.mounts) {
      const root = trimSlash(mount.mountPath);
      if (normalized === root || normalized.startsWith(`${root}/`)) return mount.hostPath + normalized.slice(root.length);
    }
    return join(this.scratchRoot, normalized);
  }

  private isHostPath(path: string): boolean {
    const under = (root: string): boolean => path === root || path.startsWith(`${root}/`);
    return under(this.scratchRoot) || this.mounts.some((mount) => under(mount.hostPath));
  }

  /** Like {@link toHostPath}, creating the folder when it lies in the scratch root. */
  toHostDirectory(containerPath: string): string {
    const hostPath = this.toHostPath(containerPath);
    mkdirSync(hostPath, { recursive: true });
    return hostPath;
  }

  /** Rewrites every mount path occurring in a string (a command argument, a shell script, a config file). */
  rewriteText(text: string): string {
    let rewritten = text;
    for (const { pattern, hostPath } of this.patterns) rewritten = rewritten.replace(pattern, () => hostPath);
    return rewritten;
  }
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
