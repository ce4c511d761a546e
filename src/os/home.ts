/**
 * Talaria's home (config.json, talaria.db, auth marks, the registry cache, installed agents):
 * `$TALARIA_HOME` made absolute (a blank one counts as unset), else `.talaria` in the user's home.
 * Every part of Talaria asks here.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function talariaHome(ctx: { env: NodeJS.ProcessEnv; homeDir?: string } = { env: process.env }): string {
  const h = ctx.env.TALARIA_HOME;
  return h !== undefined && h.trim() !== '' ? resolve(h) : join(ctx.homeDir ?? homedir(), '.talaria');
}
