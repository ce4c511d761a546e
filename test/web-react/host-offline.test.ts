/**
 * The session page's host-offline banner (web/src/components/host-offline.tsx, docs/fleet.md §4):
 * shown only for another host's session whose host is offline; "Continue here" with the session's
 * own agent when this host has it ready, else a menu of this host's agents; nothing to a viewer.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ProviderInfo, SessionSummaryInfo } from '../../web/src/api/server.js';
import { HostOfflineBanner } from '../../web/src/components/host-offline.js';

const base: SessionSummaryInfo = {
  id: 's1',
  provider: 'demo',
  cwd: '/p',
  archived: false,
  stored: true,
  live: false,
  state: 'stored',
  needsAttention: false,
};
const offline = {
  ...base,
  host: { id: 'h_b', name: 'box-b', online: false, self: false, heartbeatAt: Date.now() },
  presence: 'offline' as const,
};
const demo = { id: 'demo', label: 'Demo agent', ready: true } as ProviderInfo;
const other = { id: 'fake', label: 'Fake agent', ready: true } as ProviderInfo;

const html = (summary: SessionSummaryInfo, providers: ProviderInfo[], readOnly = false) =>
  renderToStaticMarkup(createElement(HostOfflineBanner, { summary, providers, readOnly, onContinue: () => undefined }));

describe('host-offline banner', () => {
  it('says nothing for a session of this host, of no fleet, or of a host that is up', () => {
    expect(html(base, [demo])).toBe('');
    expect(html({ ...offline, host: { ...offline.host, self: true } }, [demo])).toBe('');
    expect(html({ ...offline, host: { ...offline.host, online: true }, presence: 'idle' }, [demo])).toBe('');
  });

  it('an offline host: the status, and "Continue here" with the same agent when it is ready here', () => {
    const h = html(offline, [other, demo]);
    expect(h).toMatch(/role="status">Running on box-b — host offline since [^<]+\. Every saved turn is here\./);
    expect(h).toContain('class="host-continue"');
    expect(h).not.toContain('aria-haspopup');
  });

  it('its agent not ready (or not here): "Continue here" opens this host’s agents to pick from', () => {
    for (const ps of [[other], [other, { ...demo, ready: false }]]) {
      const h = html(offline, ps);
      expect(h).toContain('aria-haspopup="menu"');
      expect(h).toContain('aria-label="Continue here"');
      expect(h).not.toContain('class="host-continue"');
    }
  });

  it('a viewer (read-only link) reads the status and is offered nothing', () => {
    const h = html(offline, [demo], true);
    expect(h).toContain('host offline');
    expect(h).not.toContain('Continue here');
  });
});
