/** The opencode/kilo config (same shape): one openai-compatible provider on the fake model. */
export function openCodeConfig(modelUrl: string, credentials: boolean): string {
  const base: Record<string, unknown> = {
    autoupdate: false,
    share: 'disabled',
    // Ask before edits and commands, so permission requests reach the client's policy.
    permission: { edit: 'ask', bash: 'ask', webfetch: 'deny' },
  };
  if (credentials) {
    base.provider = {
      fake: {
        npm: '@ai-sdk/openai-compatible', // bundled
        name: 'Fake model',
        options: { baseURL: `${modelUrl}/v1`, apiKey: 'sk-fake-offline' },
        models: { 'fake-model': { name: 'Fake model', tool_call: true } },
      },
    };
    base.model = 'fake/fake-model';
    base.small_model = 'fake/fake-model';
  }
  return JSON.stringify(base);
}
