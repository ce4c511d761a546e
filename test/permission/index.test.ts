import { describe, it, expect } from 'vitest';
import * as permission from '../../src/permission/index.js';

describe('permission index', () => {
  it('exports the public API by name', () => {
    for (const name of [
      'describeRequest',
      'isSensitivePath',
      'isDangerousCommand',
      'evaluate',
      'chooseOption',
      'PermissionBroker',
      'alwaysRule',
      'resolveRealPaths',
    ]) {
      expect(typeof (permission as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
