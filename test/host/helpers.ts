/** Shared setup for host tests: hosts over the Hermes emulator and the raw fault agents. */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentHost, type HostOptions } from '../../src/host/host.js';
import { checkHostEvent, type HostEvent } from '../../src/host/events.js';
import { createRegistry } from '../../src/providers/registry.js';
import { customProvider, type AgentDefinition } from '../../src/providers/custom.js';
import { tempDir as sharedTempDir, cleanup as sharedCleanup } from '../providers/helpers.js';
import { currentEnv } from '../../src/providers/locate.js';
import type { Provider } from '../../src/providers/types.js';
import type { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/session/events.js';

// Shared with the provider tests: one copy of the paths, the Hermes config and the temp-dir registry.
import { TSX, FAKE, CONFIG } from '../providers/helpers.js';
import { nodeArgs } from '../prebuilt.js';
import { pidAlive as alive } from '../../src/os/proc-scan.js';

/** True while a process exists and is not a zombie. */
export { alive };
export { TSX, FAKE, CONFIG };
export const HERMES_BIN = fileURLToPath(new URL('../fakes/hermes/bin/hermes', import.meta.url));
export const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));

export function tempDir(prefix = 'talaria-host-'): string {
  return sharedTempDir(prefix);
}

export function cleanupDirs(): void {
  sharedCleanup();
}

/** A Hermes home with a configured provider (config: null → unconfigured). */
export function hermesHome(config: string | null = CONFIG): string {
  const home = tempDir('hermes-home-');
  if (config !== null) writeFileSync(join(home, 'config.yaml'), config);
  return home;
}

/** A node script as a user-defined agent. */
export function scriptAgent(name: string, file: string, def: Partial<AgentDefinition> = {}): Provider {
  return customProvider({ name, command: process.execPath, args: nodeArgs(FAKE(file)), ...def });
}

const hosts: AgentHost[] = [];
const invalidEvents: string[] = [];

export interface TestHost {
  host: AgentHost;
  events: HostEvent[];
  workspace: string;
}

/**
 * A host whose Hermes is the emulator (HERMES_BIN) on `hermesHome`, plus the given providers.
 * `emu` are emulator switches (HERMES_EMU_*), set in every agent's env.
 */
export function makeHost(
  o: Partial<HostOptions> & {
    hermesHome?: string;
    emu?: Record<string, string>;
    providers?: Provider[];
    workspace?: string;
  } = {},
): TestHost {
  const { hermesHome: home, emu, providers, workspace: ws, ...rest } = o;
  const workspace = ws ?? tempDir('ws-');
  const env: Record<string, string | undefined> = { ...process.env, HERMES_BIN, HERMES_HOME: home ?? hermesHome() };
  const host = new AgentHost({
    registry: createRegistry({ extra: providers ?? [] }),
    env: currentEnv({ env }),
    terminateGraceMs: 500,
    workspaceEnv: () => ({ ...(emu ?? {}) }),
    ...rest,
  });
  const events: HostEvent[] = [];
  host.subscribe((e) => {
    events.push(e);
    const bad = checkHostEvent(e);
    if (bad) invalidEvents.push(`${e.type}: ${bad}`);
  });
  hosts.push(host);
  return { host, events, workspace };
}

/** Shuts every host down; fails the test if any host event did not match its schema. */
export async function shutdownHosts(): Promise<void> {
  await Promise.all(hosts.splice(0).map((h) => h.shutdown()));
  cleanupDirs();
  const bad = invalidEvents.splice(0);
  if (bad.length) throw new Error(`host events outside their schema:\n${bad.join('\n')}`);
}

/** The first host event matching `pred` (already emitted ones included). */
export function waitHost(t: TestHost, pred: (e: HostEvent) => boolean): Promise<HostEvent> {
  const seen = t.events.find(pred);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const off = t.host.subscribe((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
}

export function waitSession(s: Session, pred: (e: SessionEvent) => boolean): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const off = s.subscribe((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
}

export function texts(s: Session, kind: 'assistant_message' | 'user_message' = 'assistant_message'): string[] {
  return s.thread.entries.filter((e) => e.kind === kind).map((e) => (e as { text: string }).text);
}

export function notices(s: Session): { code: string; text: string; level: string }[] {
  return s.thread.entries.filter((e) => e.kind === 'notice') as never;
}

/** Client→agent frames the emulator logged (HERMES_EMU_LOG), in arrival order, across processes. */
export function emuLog(file: string): { method?: string; params?: any; id?: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: { method?: string; params?: any; id?: unknown } }).msg);
}

/** Frames host-agent logged (HOST_AGENT_LOG), with the pid of the process that received each. */
export function agentLog(file: string): { pid: number; msg: { method?: string; params?: any } }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export function mkdirp(p: string): string {
  mkdirSync(p, { recursive: true });
  return p;
}

/** Resolves once `pid` is gone; fails naming it after `ms` (plain code: two-hosts.ts runs this outside vitest). */
export async function gone(pid: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
