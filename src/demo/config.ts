/**
 * Identity, options and fixed catalogues of the demo agent (models, modes, commands,
 * permission options), plus reading TALARIA_DEMO_* variables.
 */
import { readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { StoredSession } from './store.js';
import type { DemoTiming } from './turn-io.js';

export const DEMO_AGENT_NAME = 'talaria-demo';
export const DEMO_AGENT_TITLE = 'Talaria demo agent (offline, scripted)';
export const DEMO_MODELS = ['demo-fast', 'demo-thorough'] as const;
export const DEMO_MODES = ['ask', 'auto'] as const;
/** Fake context window reported in usage_update.size. */
export const DEMO_CONTEXT_SIZE = 128_000;

export interface DemoAgentOptions {
  stream: acp.Stream;
  /** Where session files live; default: $TALARIA_DEMO_HOME or <tmpdir>/talaria-demo/<uid>. */
  home?: string;
  version?: string;
  /** session/list page size. */
  pageSize?: number;
  timing?: Partial<DemoTiming>;
  /** After session/cancel, how long to wait for the client to answer a pending permission request. */
  permissionGraceMs?: number;
  /** Debug log sink; the demo is silent without it. */
  log?: (line: string) => void;
}

export const DEFAULT_TIMING: DemoTiming = {
  chunkDelayMs: 15,
  slowDelayMs: 100,
  slowChunks: 40,
  runTimeoutMs: 30_000,
  maxOutputBytes: 64 * 1024,
  maxReadBytes: 256 * 1024,
};

export function defaultDemoHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TALARIA_DEMO_HOME) return resolve(env.TALARIA_DEMO_HOME);
  const uid = process.getuid?.() ?? userInfo().username;
  return join(tmpdir(), 'talaria-demo', String(uid));
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Options from TALARIA_DEMO_* variables (main.ts; tests use them to shorten delays). */
export function demoOptionsFromEnv(env: NodeJS.ProcessEnv): Omit<DemoAgentOptions, 'stream'> {
  const timing: Partial<DemoTiming> = {};
  const set = (k: keyof DemoTiming, v: string | undefined): void => {
    const n = num(v);
    if (n !== undefined) timing[k] = n;
  };
  set('chunkDelayMs', env.TALARIA_DEMO_CHUNK_DELAY_MS);
  set('slowDelayMs', env.TALARIA_DEMO_SLOW_DELAY_MS);
  set('slowChunks', env.TALARIA_DEMO_SLOW_CHUNKS);
  set('runTimeoutMs', env.TALARIA_DEMO_RUN_TIMEOUT_MS);
  set('maxOutputBytes', env.TALARIA_DEMO_MAX_OUTPUT_BYTES);
  set('maxReadBytes', env.TALARIA_DEMO_MAX_READ_BYTES);
  const o: Omit<DemoAgentOptions, 'stream'> = { home: defaultDemoHome(env), timing };
  const page = num(env.TALARIA_DEMO_PAGE_SIZE);
  if (page !== undefined && page >= 1) o.pageSize = Math.floor(page);
  const grace = num(env.TALARIA_DEMO_PERMISSION_GRACE_MS);
  if (grace !== undefined) o.permissionGraceMs = grace;
  return o;
}

export function packageVersion(): string {
  try {
    // src/demo and dist/demo both sit two levels below the package root.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (pkg.name === 'talaria-acp' && typeof pkg.version === 'string') return pkg.version;
  } catch {
    // fall through
  }
  return '0.0.0';
}

export const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

export const COMMANDS: acp.AvailableCommand[] = [
  { name: 'help', description: 'What the demo agent can do' },
  { name: 'tour', description: 'The showcase: everything at once' },
  { name: 'read', description: 'Read a file in this folder', input: { hint: 'FILE' } },
  { name: 'edit', description: 'Append a line to a file (asks permission)', input: { hint: 'FILE' } },
  { name: 'run', description: 'Run a shell command (asks permission)', input: { hint: 'CMD' } },
  { name: 'plan', description: 'A plan that updates as it goes' },
  { name: 'slow', description: 'Stream slowly so you can cancel' },
];

export function configOptions(d: StoredSession): acp.SessionConfigOption[] {
  return [
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      description: 'Fake models: the demo agent is scripted and offline',
      currentValue: d.model,
      options: [
        { value: 'demo-fast', name: 'Demo fast (offline demo)', description: 'Scripted replies' },
        {
          value: 'demo-thorough',
          name: 'Demo thorough (offline demo)',
          description: 'Scripted replies with extra thinking',
        },
      ],
    },
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: d.mode,
      options: [
        { value: 'ask', name: 'Ask', description: 'Ask permission before edits and commands' },
        { value: 'auto', name: 'Auto', description: 'Edit and run without asking (demo)' },
      ],
    },
  ];
}
