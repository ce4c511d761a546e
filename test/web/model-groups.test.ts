import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, webSuite, type World } from './helpers.js';

// The Hermes emulator as a config.json agent, so its env can ask for the live-like (big) catalog.
const HERMES = fileURLToPath(new URL('../fakes/hermes/bin/hermes', import.meta.url));
// Its own HERMES_HOME (a config.json agent gets only the env it is given), with a fake model as `hermes: true` writes.
const HERMES_HOME = mkdtempSync(join(tmpdir(), 'talaria-web-hermes-'));
writeFileSync(
  join(HERMES_HOME, 'config.yaml'),
  'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
);

/** What the Model select holds, group by group (a string: the test's tsconfig has no DOM types). */
const GROUPS = `[...document.querySelector('select[aria-label="Model"]').querySelectorAll('optgroup')].map((g) => ({ label: g.label, options: [...g.querySelectorAll('option')].map((o) => o.textContent) }))`;

/**
 * The model picker groups Hermes' catalog by provider (the catalog rules: the "Provider: …" heading
 * is the group, "<group> · " is peeled off the name, a `custom:<p>:<model>` duplicate is one row).
 */
describe('web: the model picker grouped by provider (Hermes)', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'model-groups',
    {
      hermes: true,
      config: {
        defaultProvider: 'big-hermes',
        agents: {
          'big-hermes': {
            command: HERMES,
            args: ['acp'],
            env: { HERMES_EMU_CATALOG: 'big', HERMES_HOME },
            label: 'Hermes (big catalog)',
          },
        },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );
  afterAll(() => rmSync(HERMES_HOME, { recursive: true, force: true }));

  it("the groups are the catalog's providers, each model once, without the provider prefix", async () => {
    await newSession(page);
    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    await expect.poll(() => model.locator('optgroup').count(), { timeout: 60_000 }).toBeGreaterThan(1);
    const groups = await page.evaluate<{ label: string; options: string[] }[]>(GROUPS);
    expect(groups.map((g) => g.label)).toEqual([
      'Custom endpoint',
      'Nous Portal',
      'OpenRouter',
      'ollama-launch',
      'lmstudio',
    ]);
    const by = new Map(groups.map((g) => [g.label, g.options]));
    expect(by.get('Nous Portal')).toContain('anthropic/claude-opus-5');
    expect(by.get('Nous Portal')).toHaveLength(20);
    // Listed twice by Hermes (`ollama-launch:` and `custom:ollama-launch:`), shown once.
    expect(by.get('ollama-launch')).toEqual(['gpt-oss:20b', 'gpt-oss:120b', 'qwen3:32b', 'llama3.3:70b']);
    expect(by.get('Custom endpoint')).toEqual(['fake-model', 'kimi-k2.7-code', 'glm-5-air']);
    for (const g of groups) for (const o of g.options) expect(o).not.toContain(' · ');
    // The current model is the one selected.
    expect(await model.inputValue()).toBe('custom:fake-model');
    await shot(page, 'model-groups');
    expect(w.errors).toEqual([]);
  });
});
