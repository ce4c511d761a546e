import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import LAYERS from './layers.json' with { type: 'json' };
import { importsOf } from './imports.js';
import { WIRE_META_READERS } from './wire-meta.js';

/**
 * DESIGN.md: imports point down only. Each src/ folder lists the folders it may import at run time,
 * and the ones it may import only types from. The SDK's runtime is imported by one file.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

// Why each edge exists: os is the bottom (processes, files, environment, real paths, redaction)
// and imports nothing of ours; every layer may use it, so store and permission take those helpers
// from os, not protocol. The store reads and writes the protocol's wire-log format (pure
// functions; TalariaError, the one error base: the store keeps its own codes) and keeps to thread and
// protocol types (the recorder lives in harness); permission keeps to protocol types; harness is
// the library face (host + store + registry); the faces (cli, server, caps) may start the bundled
// demo agent but never import each other (except cli → server: `talaria serve` starts it; cli → caps: `talaria caps` mints references and serve mounts /captp).
const RUNTIME: Record<string, string[]> = LAYERS.runtime;
const TYPES_ONLY: Record<string, string[]> = LAYERS.typesOnly;
// Files allowed to import the SDK runtime: the protocol adapter, and the demo agent (a separate program).
const SDK_RUNTIME_OK = [/^protocol\/connection\.ts$/, /^protocol\/wire-error\.ts$/, /^demo\//];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function violations(files: { rel: string; source: string }[]): string[] {
  const bad: string[] = [];
  for (const { rel, source } of files) {
    const layer = rel.includes('/') ? rel.split('/')[0]! : '(root)';
    for (const imp of importsOf(source)) {
      if (imp.spec.startsWith('@agentclientprotocol/sdk')) {
        if (!imp.typeOnly && !SDK_RUNTIME_OK.some((r) => r.test(rel))) bad.push(`${rel}: SDK runtime import`);
        continue;
      }
      if (!imp.spec.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(rel), imp.spec))
        .split(sep)
        .join('/');
      if (target.startsWith('..')) {
        bad.push(`${rel}: imports outside src (${imp.spec})`);
        continue;
      }
      const tLayer = target.includes('/') ? target.split('/')[0]! : '(root)';
      if (layer === '(root)' || tLayer === layer) continue;
      if (tLayer === '(root)') {
        bad.push(`${rel}: imports the package root`);
        continue;
      }
      const ok =
        (RUNTIME[layer] ?? []).includes(tLayer) || (imp.typeOnly && (TYPES_ONLY[layer] ?? []).includes(tLayer));
      if (!ok) bad.push(`${rel}: ${layer} may not import ${imp.typeOnly ? 'types from ' : ''}${tLayer} (${imp.spec})`);
    }
  }
  return bad;
}

describe('layer rules', () => {
  it('src/ imports point down only', () => {
    const files = walk(SRC).map((p) => ({
      rel: relative(SRC, p).split(sep).join('/'),
      source: readFileSync(p, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(5);
    expect(violations(files)).toEqual([]);
  });

  it('the checker catches upward imports, SDK runtime imports and type-only leaks', () => {
    const bad = violations([
      { rel: 'thread/reducer.ts', source: "import { Session } from '../session/session.js';" },
      { rel: 'thread/x.ts', source: "import type { Frame } from '../protocol/types.js';" },
      { rel: 'thread/y.ts', source: "import { RPC } from '../protocol/errors.js';" },
      { rel: 'session/s.ts', source: "import * as acp from '@agentclientprotocol/sdk';" },
      { rel: 'session/t.ts', source: "import type { SessionUpdate } from '@agentclientprotocol/sdk';" },
      { rel: 'server/app.ts', source: "export { x } from '../cli/main.js';" },
      { rel: 'protocol/connection.ts', source: "import * as acp from '@agentclientprotocol/sdk';" },
      { rel: 'store/recorder.ts', source: "import type { SessionEvent } from '../session/events.js';" },
      { rel: 'store/permissions.ts', source: "import type { PermissionRule } from '../permission/types.js';" },
      { rel: 'store/wire-log.ts', source: "import type { Frame } from '../protocol/types.js';" },
    ]);
    expect(bad).toEqual([
      'thread/reducer.ts: thread may not import session (../session/session.js)',
      'thread/y.ts: thread may not import protocol (../protocol/errors.js)',
      'session/s.ts: SDK runtime import',
      'server/app.ts: server may not import cli (../cli/main.js)',
      'store/recorder.ts: store may not import types from session (../session/events.js)',
      'store/permissions.ts: store may not import types from permission (../permission/types.js)',
    ]);
  });

  it('os imports nothing of ours; permission takes os helpers from os, not protocol', () => {
    const bad = violations([
      { rel: 'os/env.ts', source: "import type { Logger } from '../protocol/types.js';" },
      { rel: 'os/redact.ts', source: "import { RPC } from '../protocol/errors.js';" },
      { rel: 'permission/real-paths.ts', source: "import { realPathOf } from '../protocol/roots.js';" },
      { rel: 'permission/grants.ts', source: "import { realPathOf } from '../os/real-path.js';" },
      { rel: 'store/db.ts', source: "import { ensurePrivateDir } from '../os/private-files.js';" },
    ]);
    expect(bad).toEqual([
      'os/env.ts: os may not import types from protocol (../protocol/types.js)',
      'os/redact.ts: os may not import protocol (../protocol/errors.js)',
      'permission/real-paths.ts: permission may not import protocol (../protocol/roots.js)',
    ]);
  });
});

/**
 * DESIGN.md: web/ (the browser app) sees only the server's contract and typed client — no other
 * part of src/, types included — and no Node built-ins.
 */
const WEB = fileURLToPath(new URL('../../web/src', import.meta.url));
const WEB_MAY_IMPORT = [
  /^src\/server\/contract\//,
  /^src\/server\/client\//,
  ...WIRE_META_READERS.map((f) => new RegExp(`^${f.replace(/\.ts$/, '.js').replace(/[./]/g, '\\$&')}$`)),
];

export function webViolations(files: { rel: string; source: string }[]): string[] {
  const bad: string[] = [];
  for (const { rel, source } of files) {
    for (const imp of importsOf(source)) {
      if (imp.spec.startsWith('node:')) {
        bad.push(`web/src/${rel}: Node built-in (${imp.spec})`);
        continue;
      }
      if (!imp.spec.startsWith('.')) continue;
      const abs = resolve(WEB, dirname(rel), imp.spec);
      const fromRoot = relative(resolve(WEB, '../..'), abs).split(sep).join('/');
      if (fromRoot.startsWith('web/src/')) continue;
      if (!WEB_MAY_IMPORT.some((r) => r.test(fromRoot)))
        bad.push(`web/src/${rel}: web may import only the server contract and client (${imp.spec})`);
    }
  }
  return bad;
}

function walkWeb(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walkWeb(p) : /\.(ts|tsx)$/.test(p) ? [p] : [];
  });
}

describe('web layer', () => {
  it('web/ imports only the server contract and typed client from src/', () => {
    const files = walkWeb(WEB).map((p) => ({
      rel: relative(WEB, p).split(sep).join('/'),
      source: readFileSync(p, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(5);
    expect(webViolations(files)).toEqual([]);
  });

  it('the wire-meta readers the web may import are leaves: they import nothing, so they bring nothing of src/ along', () => {
    for (const f of WIRE_META_READERS) expect(importsOf(readFileSync(resolve(WEB, '../..', f), 'utf8')), f).toEqual([]);
  });

  it('the checker catches a web import of anything else in src/, types included', () => {
    expect(
      webViolations([
        { rel: 'state/a.ts', source: "import type { Entry } from '../../../src/thread/types.js';" },
        { rel: 'b.tsx', source: "import { x } from '../../src/session/events.js';" },
        { rel: 'c.ts', source: "import { readFileSync } from 'node:fs';" },
        {
          rel: 'api/ok.ts',
          source: "import { connectServer } from '../../../src/server/client/index.js';\nimport './local.js';",
        },
      ]),
    ).toEqual([
      'web/src/state/a.ts: web may import only the server contract and client (../../../src/thread/types.js)',
      'web/src/b.tsx: web may import only the server contract and client (../../src/session/events.js)',
      'web/src/c.ts: Node built-in (node:fs)',
    ]);
  });
});
