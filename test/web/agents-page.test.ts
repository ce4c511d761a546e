/**
 * The Agents page as a product (issue 37), in Chromium against a real `talaria serve` whose ACP
 * Registry and npm registry are loopback servers: ready agents first, the rest grouped by what
 * they need; Install where the registry has the agent (by id, or by the npm package the built-in
 * names), through the route `talaria agents add` uses; a failed install says why and installs
 * nothing; commands to type come with a Copy button; a terminal sign-in whose CLI is missing says
 * so plainly. axe-clean and screenshotted at desktop and phone sizes, light and dark.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agentTarGz,
  npmPackage,
  serveIndex,
  serveNpm,
  sha256,
  startLoopback,
  type Loopback,
} from '../providers/registry-acp/helpers.js';
import { axeViolations } from './axe.js';
import { shot } from './browser.js';
import { openPage, openProject, world, type World } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const AUTH_AGENT = fileURLToPath(new URL('../fakes/bin/auth-agent.ts', import.meta.url));

describe('web: the Agents page', { timeout: 240_000 }, () => {
  let lb: Loopback;
  let w: World;
  let page: Page;
  const work = mkdtempSync(join(tmpdir(), 'talaria-web-agents-'));
  const agentsDir = () => join(w.served.home, 'talaria', 'agents');
  const card = (id: string) => page.locator(`#provider-${id}`);
  const groupOf = (id: string) => card(id).getAttribute('data-group');

  beforeAll(async () => {
    lb = await startLoopback();
    const tgz = await agentTarGz(join(work, 'tgz'));
    lb.routes.set('/dl/kimi.tar.gz', { body: tgz });
    lb.routes.set('/dl/codex.tar.gz', { body: tgz });
    serveNpm(lb, 'opencode-ai', [
      {
        version: '1.0.0',
        ...(await npmPackage(join(work, 'npm'), lb.url, 'opencode-ai', '1.0.0', { bin: 'opencode' })),
      },
    ]);
    const claude = '@zed-industries/claude-agent-acp';
    serveNpm(lb, claude, [
      {
        version: '0.23.1',
        ...(await npmPackage(join(work, 'npm'), lb.url, claude, '0.23.1', { bin: 'claude-agent-acp' })),
      },
    ]);
    const binary = (id: string, name: string, sum: string) => ({
      id,
      name,
      version: '1.2.0',
      description: `${name} from the registry`,
      license: 'MIT',
      distribution: {
        binary: { 'linux-x86_64': { archive: `${lb.url}/dl/${id}.tar.gz`, cmd: './dist/agent', sha256: sum } },
      },
    });
    serveIndex(lb, [
      // The same id as the built-in: installing it replaces "not installed".
      binary('kimi', 'Kimi CLI', sha256(tgz)),
      // A download that is not what the registry published: nothing is installed.
      binary('codex', 'Codex', '0'.repeat(64)),
      // Another id with opencode's npm package: Install on opencode installs that package as opencode, at this pin.
      {
        id: 'opencode-reg',
        name: 'opencode (registry)',
        version: '1.0.0',
        description: 'opencode through npm',
        distribution: { npx: { package: 'opencode-ai@1.0.0' } },
      },
    ]);
    w = await world({
      env: {
        TALARIA_REGISTRY_URL: `${lb.url}/registry.json`,
        npm_config_registry: `${lb.url}/`,
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_update_notifier: 'false',
        // No `claude` CLI: the sign-in that needs it says so.
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      },
      config: {
        agents: {
          authclaude: {
            command: process.execPath,
            args: [...nodeArgs(AUTH_AGENT), '--config', join(work, 'auth.json'), '--claude-method'],
          },
        },
      },
    });
    // The agent refuses a session first: that is what makes its sign-in gap.
    const { workspace } = await w.api.api.openWorkspace({ body: { path: w.served.project } });
    await expect(
      w.api.api.createSession({ params: { id: workspace.id }, body: { provider: 'authclaude' } }),
    ).rejects.toThrow(/sign-in|auth/i);
    page = await openPage(w, { viewport: { width: 1440, height: 900 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.served.origin });
    await openProject(page, w.served.project);
    await page.goto(`${w.served.origin}/#/readiness`);
  }, 150_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await shot(page, `FAIL-agents-${ctx.task.name.slice(0, 20)}`);
  });
  afterAll(async () => {
    await w?.stop();
    await lb?.close();
  });

  it('ready agents first, the rest grouped by what they need; no red; a command to type has a Copy button', async () => {
    await expect.poll(() => groupOf('demo'), { timeout: 60_000 }).toBe('ready');
    await expect.poll(() => groupOf('authclaude'), { timeout: 60_000 }).toBe('sign-in');
    const headings = await page.locator('.agent-group > h2').allTextContents();
    expect(headings[0]).toMatch(/^Ready \(\d+\)$/);
    expect(headings.map((h) => h.replace(/ \(\d+\)$/, ''))).toEqual(['Ready', 'Needs sign-in', 'Needs install']);
    expect(await groupOf('claude-code')).toBe('install');
    expect(await card('demo').locator('h3').textContent()).toMatch(/Demo agent\s*ready/);
    // Calm text: nothing on the page is an error.
    expect(await page.locator('.error, .bad').count()).toBe(0);

    // Kimi and Codex are in the registry under their own ids: Install. opencode and Claude Code are
    // not, but each names its npm package: Install from npm. pi needs two packages: its command, with Copy.
    expect(await card('kimi').getByRole('button', { name: 'Install Kimi CLI' }).isEnabled()).toBe(true);
    expect(await card('opencode').getByRole('button', { name: 'Install opencode' }).isEnabled()).toBe(true);
    expect(await card('claude-code').getByText('@zed-industries/claude-agent-acp from npm').count()).toBe(1);
    expect(
      await card('pi')
        .getByRole('button', { name: /^Install/ })
        .count(),
    ).toBe(0);
    // What installs by hand folds away (several of them); Hermes and the one-click ones stay in view.
    const fold = page.locator(
      '#group-install ~ details.agent-fold, .agent-group:has(#group-install) details.agent-fold',
    );
    expect(await fold.getAttribute('open')).toBeNull();
    expect(await fold.locator('summary').textContent()).toMatch(/^\d+ more to install by hand: .*pi/);
    expect(await card('hermes').isVisible()).toBe(true);
    expect(await card('pi').isVisible()).toBe(false);
    await fold.locator('summary').click();
    const cmd = 'npm install -g @mariozechner/pi-coding-agent pi-acp';
    const copy = card('pi').getByRole('button', { name: `Copy the command ${cmd}` });
    await copy.click();
    await copy.locator('xpath=..').getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(cmd);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'agents-desktop-light');
    expect(w.errors).toEqual([]);
  });

  it('Install by keyboard moves Kimi to Ready; a bad download says why and installs nothing; a built-in installs from npm', async () => {
    // Codex first: the sha256 does not match.
    await card('codex').getByRole('button', { name: 'Install Codex' }).click();
    const refused = card('codex').getByRole('alert');
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.textContent()).toMatch(
      /Not installed: .*does not match the registry's sha256.*nothing was installed/,
    );
    expect(await groupOf('codex')).toBe('install');
    expect(existsSync(agentsDir()) ? readdirSync(agentsDir()).filter((d) => d.startsWith('codex')) : []).toEqual([]);
    await card('codex').scrollIntoViewIfNeeded();
    await shot(page, 'agents-install-failed');

    // Kimi by keyboard: Tab to its Install button, Enter.
    const install = card('kimi').getByRole('button', { name: 'Install Kimi CLI' });
    await page.locator('h1').click();
    let reached = false;
    for (let i = 0; i < 120 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await install.evaluate(
        (b) => (b as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === b,
      );
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => groupOf('kimi'), { timeout: 60_000 }).toBe('ready');
    expect(readdirSync(agentsDir())).toContain('kimi@1.2.0');
    // The keyboard focus moved with the card.
    await expect
      .poll(() =>
        card('kimi').evaluate(
          (e) => (e as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === e,
        ),
      )
      .toBe(true);

    // opencode: its own npm package, at the version the registry pins for it, installed as opencode itself.
    // (A card that becomes ready moves to Ready, where its version says what was installed.)
    await card('opencode').getByRole('button', { name: 'Install opencode' }).click();
    await expect.poll(() => groupOf('opencode'), { timeout: 120_000 }).toBe('ready');
    expect(await card('opencode').locator('h3').textContent()).toMatch(/ready\s*1\.0\.0/);
    expect(readdirSync(agentsDir())).toContain('opencode@1.0.0');
    // Claude Code: npm's latest; it stays Claude Code, so its sign-in check follows.
    await card('claude-code').getByRole('button', { name: 'Install Claude Code' }).click();
    await expect.poll(() => groupOf('claude-code'), { timeout: 120_000 }).not.toBe('install');
    expect(await card('claude-code').locator('h3').textContent()).toMatch(/0\.23\.1/);
    await card('claude-code').scrollIntoViewIfNeeded();
    await shot(page, 'agents-installed-from-npm');
    expect(w.errors).toEqual([]);
  });

  it('a terminal sign-in whose CLI is missing says so plainly, with the command and a Copy button', async () => {
    const item = card('authclaude');
    const button = item.getByRole('button', { name: 'Sign in to authclaude with Log in with Claude Code' });
    await button.waitFor({ timeout: 60_000 });
    await button.click();
    const failed = item.getByRole('alert');
    await failed.waitFor({ timeout: 60_000 });
    expect(await failed.textContent()).toMatch(/the claude CLI is needed and is not installed here/);
    // Refused before anything ran: no empty terminal beside the reason.
    expect(await item.getByTestId('sign-in-terminal').isVisible()).toBe(false);
    const copy = failed.getByRole('button', { name: 'Copy the command npm install -g @anthropic-ai/claude-code' });
    await copy.click();
    await copy.locator('xpath=..').getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    await item.scrollIntoViewIfNeeded();
    await shot(page, 'agents-claude-cli-needed');
    expect(await axeViolations(page)).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  it('desktop and phone, light and dark: axe-clean', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [name, viewport] of [
        ['desktop', { width: 1440, height: 900 }],
        ['phone', { width: 390, height: 844 }],
      ] as const) {
        const ctx = await w.browser.newContext({ viewport, colorScheme });
        const p = await openPage(w, { context: ctx });
        // The link's token becomes a cookie once the app is up: only then another page.
        await p.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
        await p.goto(`${w.served.origin}/#/readiness`);
        await p.locator('#provider-demo[data-group=ready]').waitFor({ timeout: 60_000 });
        await p.locator('.registry-item').first().waitFor({ timeout: 60_000 });
        expect(await axeViolations(p), `${name}-${colorScheme}`).toEqual([]);
        await shot(p, `agents-${name}-${colorScheme}`);
        // The page scrolls inside .main: a shot of each part a person scrolls to.
        for (const part of ['#group-sign-in', '#group-install', '.registry']) {
          await p
            .locator(part)
            .first()
            .evaluate((e) => (e as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }));
          await shot(p, `agents-${name}-${colorScheme}-${part.replace(/\W/g, '')}`);
        }
        await ctx.close();
      }
    }
    expect(w.errors).toEqual([]);
  });
});
