/**
 * Turns matrix wire logs (.cache/agents/runs/<agent>/command/<scenario>.ndjson: the by-command
 * row, the agent's own launcher) into small, self-contained
 * fixtures under test/fixtures/agents/<agent>/: initialize + session/new + the scenarios that show
 * a quirk, with long strings and long lists cut so each file stays far below 30 KB.
 *   npx tsx test/agents/matrix/fixtures.ts [AGENT…]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatWireLine, parseWireLog } from '../../../src/protocol/wire-log.js';
import type { WireLogLine } from '../../../src/protocol/types.js';
import { CACHE_ROOT } from '../profiles/install.js';

export const FIXTURE_ROOT = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));
const MAX_STRING = 600;
const MAX_LIST = 4;
const MAX_BYTES = 30_000;

/** fixture name → the recorded files it is made of, in order (the keyless ones are whole runs). */
export const FIXTURES: Record<string, Record<string, string[]>> = {
  'claude-agent-acp': {
    text: ['initialize', 'session-new', 'text'],
    shell: ['initialize', 'session-new', 'shell'],
    'error-then-cancel': ['initialize', 'session-new', 'error-400', 'cancel'],
    'no-credentials': ['keyless-all'],
  },
  'claude-code-acp': {
    shell: ['initialize', 'session-new', 'shell'],
    'deny-then-error': ['initialize', 'session-new', 'deny', 'error-400'],
  },
  'codex-acp': {
    write: ['initialize', 'session-new', 'write'],
    cancel: ['initialize', 'session-new', 'cancel'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    'no-credentials': ['keyless-all'],
  },
  'gemini-cli': {
    text: ['initialize', 'session-new', 'text'],
    write: ['initialize', 'session-new', 'write'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    'no-credentials': ['keyless-all'],
  },
  // Their keyless run goes through the host (its stall watchdog): one log, `no-credentials`.
  opencode: {
    cancel: ['initialize', 'session-new', 'cancel'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    'no-credentials': ['no-credentials'],
  },
  kilo: {
    write: ['initialize', 'session-new', 'write'],
    cancel: ['initialize', 'session-new', 'cancel'],
    'no-credentials': ['no-credentials'],
  },
  'qwen-code': {
    text: ['initialize', 'session-new', 'text'],
    shell: ['initialize', 'session-new', 'shell'],
    write: ['initialize', 'session-new', 'write'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    'no-credentials': ['keyless-all'],
  },
  copilot: {
    'session-new': ['initialize', 'session-new'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    cancel: ['initialize', 'session-new', 'cancel'],
    'no-credentials': ['keyless-all'],
  },
  pi: {
    text: ['initialize', 'session-new', 'text'],
    shell: ['initialize', 'session-new', 'shell'],
    'error-400': ['initialize', 'session-new', 'error-400'],
    'no-credentials': ['keyless-all'],
  },
  cursor: {
    text: ['initialize', 'session-new', 'text'],
  },
};

/** Cuts long strings and long lists (commands, models, history) anywhere in a frame. */
export function trimValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string')
    return v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…[${v.length - MAX_STRING} chars trimmed]` : v;
  if (Array.isArray(v)) {
    // Content blocks and prompt arrays stay whole (their strings are cut); catalogs and command lists are cut.
    const keep = v.length > MAX_LIST && depth > 2 ? v.slice(0, MAX_LIST) : v;
    return keep.map((x) => trimValue(x, depth + 1));
  }
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = trimValue(x, depth + 1);
    return out;
  }
  return v;
}

export function buildFixture(agent: string, parts: string[], runs = join(CACHE_ROOT, 'runs')): string {
  const lines: WireLogLine[] = [];
  for (const p of parts) {
    const file = join(runs, agent, 'command', `${p}.ndjson`);
    if (!existsSync(file)) throw new Error(`no recording ${file}: run the matrix for ${agent} first`);
    lines.push(...parseWireLog(readFileSync(file, 'utf8')));
  }
  let text = lines.map((l) => formatWireLine({ ...l, msg: trimValue(l.msg) as WireLogLine['msg'] })).join('\n') + '\n';
  if (Buffer.byteLength(text) > MAX_BYTES) {
    // Still too big: drop context-meter and command-list updates, which no quirk test reads.
    const kept = lines.filter((l) => {
      const u = (l.msg.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate;
      return u !== 'usage_update' && u !== 'available_commands_update';
    });
    text = kept.map((l) => formatWireLine({ ...l, msg: trimValue(l.msg) as WireLogLine['msg'] })).join('\n') + '\n';
  }
  return text;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const only = process.argv.slice(2);
  for (const [agent, files] of Object.entries(FIXTURES)) {
    if (only.length && !only.includes(agent)) continue;
    mkdirSync(join(FIXTURE_ROOT, agent), { recursive: true });
    for (const [name, parts] of Object.entries(files)) {
      try {
        const text = buildFixture(agent, parts);
        writeFileSync(join(FIXTURE_ROOT, agent, `${name}.ndjson`), text);
        process.stdout.write(`${agent}/${name}.ndjson ${Buffer.byteLength(text)} bytes\n`);
      } catch (err) {
        process.stdout.write(`${agent}/${name}: ${(err as Error).message}\n`);
      }
    }
  }
}
