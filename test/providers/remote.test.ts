import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/providers/config.js';
import { remoteLaunch } from '../../src/providers/remote.js';

describe('an agent by URL (config.json `url`, --agent-url)', () => {
  it("runs Talaria's stdio ⇄ WebSocket pipe, the token in its env and never on its command line", () => {
    const r = remoteLaunch('ws://127.0.0.1:4000/acp?agent=hermes#token=s3cret', { what: '--agent-url' });
    expect(r.command).toBe(process.execPath);
    expect(r.args.slice(1)).toEqual(['acp', '--attach', 'ws://127.0.0.1:4000/acp?agent=hermes']);
    expect(r.args[0]).toMatch(/bin\/talaria\.js$/);
    expect(r.env).toEqual({ TALARIA_TOKEN: 's3cret' });
    expect(JSON.stringify(r.args)).not.toContain('s3cret');
  });

  it('config.json: a `url` entry becomes that agent; refused URLs and command+url are problems that name the entry', () => {
    const { config, problems } = parseConfig(
      JSON.stringify({
        agents: {
          far: { url: 'wss://box.example/acp#token=t1', label: 'Far' },
          near: { url: 'ws://localhost:4000/acp', env: { TALARIA_TOKEN: 't2' } },
          plain: { url: 'ws://box.example/acp#token=t3' },
          both: { url: 'ws://localhost:1/acp', command: 'x' },
        },
      }),
    );
    expect(config.agents.far).toMatchObject({ command: process.execPath, env: { TALARIA_TOKEN: 't1' }, label: 'Far' });
    expect(config.agents.far!.args!.slice(1)).toEqual(['acp', '--attach', 'wss://box.example/acp']);
    expect(config.agents.near).toMatchObject({ env: { TALARIA_TOKEN: 't2' }, label: 'near (ws://localhost:4000/acp)' });
    expect(config.agents.plain).toBeUndefined();
    expect(config.agents.both).toBeUndefined();
    expect(problems).toEqual([
      expect.stringMatching(/^agent "plain" skipped: agent "plain" url: refusing plain ws:\/\/ to box\.example/),
      'agent "both" skipped: give either "command" or "url", not both',
    ]);
    expect(problems.join('\n')).not.toContain('t3');
  });
});
