/**
 * The effects Talaria performs for the agent (fs/*, terminal/create), described for whoever
 * authorises them. The protocol layer knows no policy: its handlers confine paths to the
 * session's roots, then call an `AuthorizeEffect` before touching anything (session/effects.ts
 * wires it to the permission broker).
 */

export type ClientEffect =
  | {
      kind: 'fs.read' | 'fs.write';
      sessionId: string;
      /** The absolute path the agent asked for. */
      path: string;
      /** The real path Talaria will open (checked inside the roots). */
      realPath: string;
    }
  | {
      kind: 'terminal.create';
      sessionId: string;
      command: string;
      /** Empty: `command` is a shell line run by `/bin/sh -c`. */
      args: string[];
      /** Extra environment the agent asked for. */
      env: { name: string; value: string }[];
      /** The cwd the agent asked for (or the session's first root). */
      cwd: string;
      /** Its real path (checked inside the roots). */
      realCwd: string;
    };

/** Resolves when the effect may happen; rejects with a RequestError (sent to the agent) when refused. */
export type AuthorizeEffect = (effect: ClientEffect) => Promise<void>;
