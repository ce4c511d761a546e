/**
 * The public API (DESIGN.md, "Layers"): the package root is the harness, the errors and types;
 * every other part is a subpath export built from one entry file at the top of src/.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; import: string } | string>;
  main: string;
  types: string;
  files: string[];
  bin: Record<string, string>;
};
const entries = Object.entries(pkg.exports).filter(
  (e): e is [string, { types: string; import: string }] => typeof e[1] === 'object',
);
const sourceOf = (distJs: string) => join(ROOT, distJs.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));

describe('package exports', () => {
  it('the root, /client, /protocol, /providers, /hermes, /host, /store and /caps, each with types', () => {
    expect(entries.map(([k]) => k)).toEqual([
      '.',
      './client',
      './protocol',
      './providers',
      './hermes',
      './host',
      './store',
      './caps',
    ]);
    for (const [, t] of entries) {
      expect(t.import).toMatch(/^\.\/dist\/[a-z-]+\.js$/);
      expect(t.types).toBe(t.import.replace(/\.js$/, '.d.ts'));
      expect(existsSync(sourceOf(t.import)), t.import).toBe(true);
    }
    expect(pkg.main).toBe(pkg.exports['.'] && (pkg.exports['.'] as { import: string }).import);
    expect(pkg.types).toBe((pkg.exports['.'] as { types: string }).types);
  });

  it("the root exports createHarness, the errors and the server's typed client at run time, nothing else", async () => {
    const root = (await import(pathToFileURL(join(ROOT, 'src/index.ts')).href)) as Record<string, unknown>;
    expect(Object.keys(root).sort()).toEqual([
      'ConnectionClosedError',
      'LiveSocket',
      'RPC',
      'RequestError',
      'ServerError',
      'TalariaError',
      'WireError',
      'applyEvent',
      'connectServer',
      'contract',
      'createHarness',
      'isTalariaError',
    ]);
    // One wire error: the SDK's class, the old name an alias of it (no conversion between two).
    const sdk = (await import('@agentclientprotocol/sdk')) as Record<string, unknown>;
    expect(root.RequestError).toBe(sdk.RequestError);
    expect(root.WireError).toBe(sdk.RequestError);
  });

  it('every subpath loads and exports what its README row names', async () => {
    const load = async (sub: string) =>
      (await import(pathToFileURL(sourceOf((pkg.exports[sub] as { import: string }).import)).href)) as Record<
        string,
        unknown
      >;
    const names: Record<string, string[]> = {
      './client': [
        'AcpClient',
        'Session',
        'Turn',
        'createThread',
        'reduce',
        'evaluatePermission',
        'PermissionBroker',
        'demoAgentCommand',
        'ConnectionClosedError',
      ],
      './protocol': [
        'connectAgent',
        'spawnAgent',
        'buildChildEnv',
        'parseWireLog',
        'formatWireLine',
        'TalariaError',
        'RequestError',
        'WireError',
      ],
      './providers': [
        'createRegistry',
        'loadRegistry',
        'resolveProvider',
        'demoProvider',
        'customProvider',
        'probeProvider',
      ],
      './hermes': [
        'hermesProvider',
        'findHermes',
        'hermesReadiness',
        'listProfiles',
        'hermesProfileListing',
        'installSkill',
        'lintHermesConfig',
        'hermesModelRows',
        'readHermesUsage',
        'formatCost',
        'listChannelSessions',
        'readChannelSession',
        'channelEntries',
      ],
      './host': ['AgentHost', 'HOST_EVENTS', 'checkHostEvent'],
      './store': ['openStore', 'createRecorder'],
    };
    for (const [sub, want] of Object.entries(names)) {
      const m = await load(sub);
      for (const n of want) expect(m[n], `${sub} ${n}`).toBeDefined();
    }
  });

  it('the tarball holds the build and the command, not the sources', () => {
    expect(pkg.files).toEqual(['dist', 'bin/talaria.js', 'bin/freshness.js']);
    expect(pkg.bin).toEqual({ talaria: 'bin/talaria.js' });
    // Every local module the command imports is in the tarball.
    const bin = readFileSync(join(ROOT, 'bin/talaria.js'), 'utf8');
    for (const m of bin.matchAll(/from '\.\/([^']+)'/g)) expect(pkg.files).toContain(`bin/${m[1]}`);
  });
});
