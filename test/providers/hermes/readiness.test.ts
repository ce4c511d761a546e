import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesReadiness } from '../../../src/providers/hermes/readiness.js';
import { hermesProvider } from '../../../src/providers/hermes/provider.js';
import { CONFIG, cleanup, hermesAt, isolatedEnv, script, tempDir } from '../helpers.js';

afterEach(cleanup);

function setup(config: string | null = CONFIG) {
  const bin = tempDir('bin-');
  hermesAt(join(bin, 'hermes'));
  const hermesHome = tempDir('hermes-');
  if (config !== null) writeFileSync(join(hermesHome, 'config.yaml'), config);
  return { bin, hermesHome, ctx: isolatedEnv({ env: { PATH: `${bin}:/usr/bin:/bin`, HERMES_HOME: hermesHome } }) };
}

const noStack = (r: { gaps: { message: string; fix: string }[] }) => {
  for (const g of r.gaps) expect(`${g.message} ${g.fix}`).not.toMatch(/\n\s+at |Traceback/);
};

describe('Hermes readiness', () => {
  it('a configured Hermes is found, versioned and ready', async () => {
    const { ctx, bin } = setup();
    const r = await hermesProvider.readiness(ctx);
    expect(r).toMatchObject({ providerId: 'hermes', found: true, version: '0.18.2', ready: true, gaps: [] });
    expect(r.command).toEqual({ command: join(bin, 'hermes'), args: ['acp', '--accept-hooks'], via: 'PATH' });
  });

  it('a missing Hermes is a gap that says how to install it', async () => {
    const r = await hermesReadiness(isolatedEnv({ env: { PATH: tempDir('empty-') } }));
    expect(r.found).toBe(false);
    expect(r.ready).toBe(false);
    expect(r.gaps).toHaveLength(1);
    expect(r.gaps[0]).toMatchObject({ code: 'not_installed' });
    expect(r.gaps[0]!.message).toMatch(/looked in: PATH, .*\.hermes\/hermes-agent\/venv\/bin\/hermes/);
    expect(r.gaps[0]!.fix).toMatch(/Install Hermes/);
    noStack(r);
  });

  it('an unconfigured Hermes says: run `hermes setup` to pick a model and add a key', async () => {
    const { ctx } = setup(null);
    const r = await hermesReadiness(ctx);
    expect(r).toMatchObject({ found: true, version: '0.18.2', ready: false });
    expect(r.gaps.map((g) => g.code)).toEqual(['unconfigured']);
    expect(r.gaps[0]!.message).toMatch(/No LLM provider configured/);
    expect(r.gaps[0]!.fix).toBe('Run `hermes setup` to pick a model and add a key.');
    noStack(r);
  });

  it('checks a profile with -p, and reports a missing one', async () => {
    const { ctx, hermesHome } = setup();
    const missing = await hermesReadiness(ctx, { profile: 'work' });
    expect(missing.gaps).toEqual([
      {
        code: 'profile_missing',
        message: 'Hermes has no profile "work".',
        fix: 'Create it with `hermes profile create work --clone`.',
      },
    ]);
    mkdirSync(join(hermesHome, 'profiles', 'work'), { recursive: true });
    const unconfigured = await hermesReadiness(ctx, { profile: 'work' });
    expect(unconfigured.gaps[0]).toMatchObject({
      code: 'unconfigured',
      fix: 'Run `hermes -p work setup` to pick a model and add a key.',
    });
    expect(unconfigured.command?.args).toEqual(['-p', 'work', 'acp', '--accept-hooks']);
  });

  it('each check has a time limit: a hanging hermes is a timeout gap, not a hang', async () => {
    const bin = tempDir('bin-');
    script(join(bin, 'hermes'), 'sleep 30');
    const r = await hermesReadiness(isolatedEnv({ env: { PATH: `${bin}:/usr/bin:/bin` } }), { timeoutMs: 300 });
    expect(r.found).toBe(true);
    expect(r.gaps.map((g) => g.code)).toEqual(['timeout', 'timeout']);
    expect(r.gaps[0]!.message).toBe('`hermes --version` did not answer within 300 ms.');
  });

  it('a broken install (no version) is a gap, and a wrong HERMES_BIN is named', async () => {
    const bin = tempDir('bin-');
    script(
      join(bin, 'hermes'),
      'echo "Traceback (most recent call last):" >&2; echo "ModuleNotFoundError: No module named hermes" >&2; exit 1',
    );
    const broken = await hermesReadiness(isolatedEnv({ env: { PATH: `${bin}:/usr/bin:/bin` } }));
    expect(broken.gaps[0]).toMatchObject({ code: 'version_failed' });
    expect(broken.gaps[0]!.message).toBe('`hermes --version` failed: ModuleNotFoundError: No module named hermes.');
    const bad = await hermesReadiness(isolatedEnv({ env: { HERMES_BIN: '/no/such/hermes' } }));
    expect(bad.gaps[0]).toMatchObject({ code: 'not_executable' });
    expect(bad.gaps[0]!.message).toMatch(/HERMES_BIN is set to \/no\/such\/hermes/);
  });

  it('lints config.yaml against the profile .env: ollama-cloud without OLLAMA_API_KEY blocks readiness, with the fix', async () => {
    const { ctx } = setup('model:\n  default: gpt-oss:120b\n  provider: ollama-cloud\n');
    const r = await hermesReadiness(ctx);
    expect(r.ready).toBe(false);
    const gap = r.gaps.find((g) => g.code === 'config')!;
    expect(gap.message).toMatch(/config\.yaml line 3: `provider: ollama-cloud` takes its key only from OLLAMA_API_KEY/);
    expect(gap.fix).toMatch(
      /^Add `OLLAMA_API_KEY=…` to \S+\.env, or use `provider: custom` with `base_url: https:\/\/ollama\.com\/v1` and `api_key`\.$/,
    );
  });

  it('gives the checks HERMES_HOME and nothing else from the environment', async () => {
    const { ctx } = setup();
    // An ambient variable (here the emulator's version switch) must not reach the check.
    const r = await hermesReadiness({ ...ctx, env: { ...ctx.env, HERMES_EMU_VERSION: '0.21' } });
    expect(r.version).toBe('0.18.2');
    expect(r.ready).toBe(true);
  });
});
