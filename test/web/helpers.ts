/**
 * Shared steps of the browser tests: a real `talaria serve`, Chromium, a page on the printed
 * link, and the few UI moves every test makes (open the project, start a session, send).
 * Every wait is on something a person would see, bounded by the test timeout.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import WebSocket from 'ws';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectServer, type ServerClient, type WebSocketCtor } from '../../src/server/client/index.js';
import { releaseShared, sharedBrowser, shot } from './browser.js';
import { ensureWebBuilt } from './build.js';
import { startServe, type ServeOptions, type Served } from './serve.js';

export interface World {
  served: Served;
  browser: Browser;
  /** The server's typed client in Node (to read what the server holds and compare). */
  api: ServerClient;
  errors: string[];
  stop(): Promise<void>;
}

export async function world(o: ServeOptions = {}): Promise<World> {
  await ensureWebBuilt();
  const served = await startServe(o);
  const browser = await sharedBrowser();
  const api = connectServer(served.origin, served.token, { WebSocket: WebSocket as unknown as WebSocketCtor });
  const errors: string[] = [];
  return {
    served,
    browser,
    api,
    errors,
    async stop() {
      await releaseShared(browser);
      await served.stop();
    },
  };
}

/** A page on the printed link; uncaught page errors fail the test that checks `w.errors`. */
export async function openPage(
  w: World,
  o: { url?: string; viewport?: { width: number; height: number }; context?: BrowserContext } = {},
): Promise<Page> {
  const ctx =
    o.context ??
    (await w.browser.newContext({ viewport: o.viewport ?? { width: 1280, height: 820 }, colorScheme: 'light' }));
  const page = await ctx.newPage();
  page.on('pageerror', (e) => w.errors.push(e.message));
  await page.goto(o.url ?? w.served.url);
  return page;
}

/** Opens the test project as a workspace (through the UI) unless it is already listed. */
export async function openProject(page: Page, path: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
  if (await page.getByRole('region', { name: /^Workspace / }).count()) return;
  await page.getByRole('button', { name: '+ Open folder' }).click();
  await page.getByLabel('Folder path').fill(path);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  await page.getByRole('region', { name: /^Workspace / }).waitFor();
}

/** Starts a session with the workspace's default agent (the split button's main half). */
export async function newSession(page: Page): Promise<string> {
  const before = page.url();
  await page
    .getByRole('button', { name: /^New session with/ })
    .first()
    .click();
  // Wait for the new session's page, not the one already open (its composer is there too).
  await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
  await page.getByLabel('Message to the agent').waitFor();
  return decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);
}

/** Starts a session with the agent named by `label` in the split button's menu; returns its id. */
export async function newSessionWith(page: Page, label: RegExp): Promise<string> {
  const before = page.url();
  await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
  await page.getByRole('menuitem', { name: label }).first().click();
  await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
  await page.getByLabel('Message to the agent').waitFor();
  return currentId(page);
}

export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Message to the agent');
  await box.fill(text);
  await box.press('Enter');
}

/** The thread's text as the server holds it (the store's snapshot), for comparison with the page. */
export async function serverText(api: ServerClient, id: string): Promise<string[]> {
  const { snapshot } = await api.api.snapshot({ params: { id } });
  return snapshot.thread.entries.map((e) => {
    const x = e as { kind?: string; text?: string; title?: string };
    return x.kind === 'tool_call' ? `tool:${x.title}` : `${x.kind}:${x.text ?? ''}`;
  });
}

/** The id of the session the page shows (from its `#/s/ID` route). */
export const currentId = (page: Page): string =>
  decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);

/**
 * The set-up every browser suite repeats, as hooks of the calling `describe`: a served world, a
 * page on its link with the test project open (handed to `ready`), a screenshot of the page when a
 * test fails (`FAIL-<name>-…`), and the world stopped at the end.
 */
export function webSuite(name: string, o: ServeOptions, ready: (w: World, page: Page) => void): void {
  let w: World | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    w = await world(o);
    page = await openPage(w);
    await openProject(page, w.served.project);
    ready(w, page);
  }, 120_000);
  afterAll(async () => w?.stop());
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page && !page.isClosed())
      await shot(page, `FAIL-${name}-${ctx.task.name.slice(0, 20)}`);
  });
}
