/**
 * Agent facts carry `model`, `models` and `tools` from what a running process of the agent
 * reported (the warm pool's catalog, the session's available commands, initialize's
 * capabilities): null before any process reported, re-asserted when one does.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import {
  connectCaps,
  E,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type FactChange,
} from '../../src/caps/index.js';
import { COMMANDS as DEMO_COMMANDS } from '../../src/demo/config.js';
import { COMMANDS as HERMES_COMMANDS } from '../fakes/hermes/slash.js';
import { collector, factView as view, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

async function observeAgents(t: Awaited<ReturnType<typeof testHost>>) {
  const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace({ methods: ['observe'] }).uri);
  const seen = collector<FactChange>();
  await E(d.root).observe(
    { type: 'agent' },
    makeFactObserver((b) => seen.onBatch(b)),
  );
  const fact = (id: string) => view(seen.items).find((f) => f.id === id);
  return { d, seen, fact };
}

describe('agent facts: model and tools', () => {
  it('demo agent: model null and tools null until a process reported, then the catalog, its commands and its prompt capabilities', async () => {
    const t = await testHost();
    const { d, seen, fact } = await observeAgents(t);
    await t.host.publishAgents({ timeoutMs: 20_000 });
    await seen.until(() => fact('demo') !== undefined);
    // No demo process has run: nothing is claimed.
    expect(fact('demo')).toMatchObject({ ready: true, model: null, models: [], tools: null });

    const a = await connectCaps<CapsLauncher>(t.url, t.launcher);
    await E(a.root).newSession();
    await seen.until(
      () =>
        fact('demo')?.model !== null &&
        (fact('demo')?.tools as { commands?: string[] } | null)?.commands?.length === DEMO_COMMANDS.length,
    );
    expect(fact('demo')).toMatchObject({
      ready: true,
      model: 'demo-fast',
      models: ['demo-fast', 'demo-thorough'],
      tools: { commands: DEMO_COMMANDS.map((c) => c.name), prompt: ['embeddedContext', 'image'], mcp: [] },
    });
    // Still one fact per agent.
    expect(view(seen.items).filter((f) => f.id === 'demo')).toHaveLength(1);
    await a.close();
    await d.close();
  });

  it('Hermes emulator: the catalog of the warm spare (no visible session) fills the fact', async () => {
    const t = await testHost({ hermes: true, harness: { warm: true } });
    const { d, seen, fact } = await observeAgents(t);
    await t.host.publishAgents({ timeoutMs: 20_000 });
    await seen.until(() => fact('hermes') !== undefined);
    expect(fact('hermes')).toMatchObject({ ready: true, model: null, models: [], tools: null });

    // The warm pool starts Hermes and keeps a spare: listed nowhere, yet its catalog is reported.
    const ws = t.h.workspaces.open(t.p.userHome);
    await ws.warm({ provider: 'hermes' });
    await seen.until(
      () =>
        fact('hermes')?.model !== null &&
        (fact('hermes')?.tools as { commands?: string[] } | null)?.commands?.length === HERMES_COMMANDS.length,
    );
    expect(t.h.sessions.list()).toEqual([]);
    const catalog = await ws.catalog({ provider: 'hermes' });
    const f = fact('hermes')!;
    expect(f.model).toBe(catalog!.model!.currentId);
    expect(f.models).toEqual(catalog!.model!.options.map((o) => o.id));
    expect((f.models as string[]).length).toBeGreaterThan(0);
    expect(f.tools).toEqual({ commands: HERMES_COMMANDS.map((c) => c.name), prompt: ['image'], mcp: [] });
    await d.close();
  });
});
