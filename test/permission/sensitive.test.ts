import { describe, it, expect } from 'vitest';
import { isSensitivePath } from '../../src/permission/sensitive.js';

const sensitive = [
  '/ws/.git',
  '/ws/.git/config',
  '/ws/.git/hooks/pre-commit',
  '/ws/sub/.git/HEAD',
  '.git/config',
  '/home/u/.ssh',
  '/home/u/.ssh/authorized_keys',
  '/home/u/.ssh/id_rsa.pub',
  '/ws/.env',
  '/ws/.env.local',
  '/ws/.env.production',
  '/ws/.env.example',
  '/ws/.envrc',
  '/ws/.ENV',
  '/home/u/keys/id_rsa',
  '/home/u/keys/id_ed25519',
  '/home/u/keys/id_ecdsa',
  '/ws/certs/server.pem',
  '/ws/certs/server.key',
  '/ws/certs/bundle.p12',
  '/ws/certs/bundle.pfx',
  '/home/u/.npmrc',
  '/home/u/.netrc',
  '/home/u/.pypirc',
  '/home/u/.git-credentials',
  '/home/u/.aws/credentials',
  '/home/u/.gnupg/private-keys-v1.d/x.key',
  '/home/u/.gnupg/pubring.kbx',
  '/home/u/.kube/config',
  '/home/u/.docker/config.json',
  'C:\\Users\\u\\.ssh\\id_rsa',
];

const notSensitive = [
  '/ws/src/environment.ts',
  '/ws/src/env.ts',
  '/ws/.environment',
  '/ws/docs/git-guide.md',
  '/ws/.gitignore',
  '/ws/.gitattributes',
  '/ws/.github/workflows/ci.yml',
  '/ws/git/config',
  '/ws/keys/id_rsa.pub',
  '/ws/src/keyboard.ts',
  '/ws/monkey',
  '/home/u/.aws/config',
  '/home/u/.kube/cache/x.json',
  '/ws/config.json',
  '/ws/ssh/notes.md',
  '/ws/README.md',
  '',
];

describe('isSensitivePath', () => {
  it.each(sensitive)('%s is sensitive', (p) => {
    expect(isSensitivePath(p)).toBe(true);
  });
  it.each(notSensitive)('%s is not sensitive', (p) => {
    expect(isSensitivePath(p)).toBe(false);
  });
});
