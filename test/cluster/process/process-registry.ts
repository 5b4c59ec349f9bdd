import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { processStartTicks, signalQuietly } from './process-tag';

interface RecordedProcess {
  readonly name: string;
  readonly pid: number;
  readonly startTicks: number | undefined;
}

/**
 * The state file listing every live child process group of a cluster (`<state dir>/processes.json`).
 * A run that crashed leaves it behind; the next start reads it and kills the groups it lists, after checking
 * the kernel start time so that a PID reused by an unrelated process is never touched.
 */
export class ProcessRegistry {
  private readonly processes = new Map<number, RecordedProcess>();

  constructor(private readonly file: string) {}

  /** Records a process group leader. */
  add(name: string, pid: number): void {
    this.processes.set(pid, { name, pid, startTicks: processStartTicks(pid) });
    this.save();
  }

  /** Forgets a process group leader that has exited. */
  remove(pid: number): void {
    if (this.processes.delete(pid)) this.save();
  }

  /** Kills (SIGKILL, whole group) every process recorded by an earlier run that is still alive. Returns their names. */
  killLeftovers(): string[] {
    if (!existsSync(this.file)) return [];
    let recorded: RecordedProcess[] = [];
    try {
      recorded = JSON.parse(readFileSync(this.file, 'utf8')) as RecordedProcess[];
    } catch {
      return [];
    }
    const killed: string[] = [];
    for (const entry of recorded) {
      const ticks = processStartTicks(entry.pid);
      if (ticks === undefined || ticks !== entry.startTicks) continue;
      signalQuietly(-entry.pid, 'SIGKILL');
      killed.push(`${entry.name} (pid ${entry.pid})`);
    }
    this.save();
    return killed;
  }

  private save(): void {
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify([...this.processes.values()], null, 2));
    renameSync(temporary, this.file);
  }
}
