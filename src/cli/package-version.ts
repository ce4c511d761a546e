/**
 * The package's version for the warm path of `talaria run`. This module sits in src/cli/ (dist/cli/)
 * on purpose: the build inlines it into dist/cli/main.js (bin/build.js), which sits there too, so
 * `../../package.json` is the package's either way.
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string })
        .version ?? '0.0.0'
    );
  } catch {
    return '0.0.0';
  }
}
