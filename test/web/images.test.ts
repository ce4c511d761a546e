import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { send, webSuite, type World, newSessionWith } from './helpers.js';
import { sdkAgent } from './serve.js';

const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/**
 * Images pasted or dropped into the composer (the events a browser makes, with a real File in a
 * DataTransfer): attached and sent to an agent that takes images; a visible note for one that does not.
 */
describe('web: paste and drop images into the composer', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'images',
    {
      config: {
        defaultProvider: 'demo',
        agents: { noimg: { ...sdkAgent({ SDK_AGENT_NO_IMAGE: '1' }), label: 'No-image agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const startWith = async (label: RegExp): Promise<void> => void (await newSessionWith(page, label));

  /** A paste on the message box, or a drop on the composer, carrying one PNG file. (A string: the test's tsconfig has no DOM types.) */
  async function deliver(how: 'paste' | 'drop', name: string): Promise<void> {
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(PNG_B64)}), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }));
      if (${JSON.stringify(how)} === 'paste') {
        document.querySelector('textarea[aria-label="Message to the agent"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      } else {
        const target = document.querySelector('.composer');
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    })()`);
  }

  const attached = () => page.getByRole('list', { name: 'Attached images' });

  it('an agent that takes images: a pasted and a dropped image are attached, shown, and sent', async () => {
    await startWith(/Demo/i);
    await deliver('paste', 'pasted.png');
    await attached().getByRole('img', { name: 'pasted.png' }).waitFor({ timeout: 10_000 });
    await deliver('drop', 'dropped.png');
    await attached().getByRole('img', { name: 'dropped.png' }).waitFor({ timeout: 10_000 });
    await shot(page, 'images-paste-drop-attached');
    await send(page, 'look at these');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('I received 2 images');
    expect(await attached().count()).toBe(0);
    await shot(page, 'images-paste-drop-sent');
  });

  it('an agent that does not take images: a paste and a drop each give a visible note, nothing attached', async () => {
    await startWith(/No-image agent/);
    await deliver('paste', 'pasted.png');
    await page.getByText('This agent does not take images: pasted.png not attached.').waitFor({ timeout: 10_000 });
    await deliver('drop', 'dropped.png');
    await page.getByText('This agent does not take images: dropped.png not attached.').waitFor({ timeout: 10_000 });
    expect(await attached().count()).toBe(0);
    await shot(page, 'images-paste-drop-gated');
    expect(w.errors).toEqual([]);
  });
});
