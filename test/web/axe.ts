/**
 * axe-core in the page (the real rules engine, injected from node_modules): the serious and
 * critical violations of what is on screen now, each as "rule: targets — help", for the failure text.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Moves the page to a route of the app (`#/settings`, …) without a reload, once it shows. */
export async function goHash(page: Page, hash: string): Promise<void> {
  const loc = () => (globalThis as unknown as { location: { hash: string } }).location;
  await page.evaluate(`(${loc.toString()})().hash = ${JSON.stringify(hash)}`);
  await page.waitForFunction(`(${loc.toString()})().hash === ${JSON.stringify(hash)}`);
}

export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as {
      document: unknown;
      axe: { run(ctx: unknown, o: object): Promise<{ violations: unknown[] }> };
    };
    return (await g.axe.run(g.document, { resultTypes: ['violations'] })).violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')} — ${v.help}`);
}
