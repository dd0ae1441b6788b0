import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StandIn } from './standin.js';

// `npm run sandbox` keeps every stand-in's accounts in one JSON file under the data folder, so the
// credentials a server and its channels were given stay valid when the sandbox restarts.

export interface NamedStandIn {
  platform: string;
  standIn: StandIn<unknown>;
}

const VERSION = 1;
/** Requests come in bursts (a connect is several calls); one write after the burst is enough. */
const SAVE_DELAY_MS = 100;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class SandboxStateFile {
  private written = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    private readonly running: readonly NamedStandIn[],
  ) {}

  /** Puts back what the file holds; answers the platforms restored (none without a file). */
  restore(): string[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${this.path} is not JSON; delete it to start with new accounts`);
    }
    if (!isRecord(parsed) || parsed.version !== VERSION || !isRecord(parsed.platforms)) {
      throw new Error(`${this.path} is not a sandbox state file of version ${VERSION}; delete it to start with new accounts`);
    }
    const restored: string[] = [];
    for (const { platform, standIn } of this.running) {
      const snapshot = parsed.platforms[platform];
      if (snapshot === undefined) continue;
      try {
        standIn.restore(snapshot);
      } catch (err) {
        throw new Error(
          `${this.path}: the ${platform} accounts cannot be read (${err instanceof Error ? err.message : String(err)}); delete the file to start with new accounts`,
        );
      }
      restored.push(platform);
    }
    this.written = text;
    return restored;
  }

  /** Saves shortly after every answered request (token exchanges are GET requests, so all count). */
  watch(): void {
    for (const { standIn } of this.running) {
      standIn.app.addHook('onResponse', async () => {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.save();
        }, SAVE_DELAY_MS);
      });
    }
  }

  /** Writes the file if anything kept changed: a whole new file, renamed over the old one. */
  save(): void {
    const platforms = Object.fromEntries(this.running.map(({ platform, standIn }) => [platform, standIn.snapshot()]));
    const text = `${JSON.stringify({ version: VERSION, platforms })}\n`;
    if (text === this.written) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${process.pid}.tmp`;
      // Credentials: readable by the owner only.
      writeFileSync(temp, text, { mode: 0o600 });
      renameSync(temp, this.path);
      this.written = text;
    } catch (err) {
      console.error(`could not save the sandbox accounts to ${this.path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Saves now (on shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.save();
  }
}
