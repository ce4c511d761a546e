import { nodeScriptCommand } from '../os/node-script.js';

/**
 * How to start the bundled demo agent with this Node: dist/demo/main.js, or from the sources the
 * checkout's fresh build, else main.ts through tsx (os/node-script.ts).
 */
export function demoAgentCommand(): { command: string; args: string[] } {
  return nodeScriptCommand(import.meta.url, 'main');
}
