/** A command line's words as the permission checks see them (dangerous.ts splits and unwraps; the checks judge). */

/** One word; `dyn` when its text is only known at run time (`$x`, `$(…)`). */
export interface Tok {
  text: string;
  dyn: boolean;
}

export interface Unwrapped {
  name: string;
  /** The name is computed at run time. */
  dynName: boolean;
  args: Tok[];
  elevated: boolean;
  /** More arguments arrive at run time (xargs). */
  extraArgs: boolean;
  /** xargs -I: input text is put INTO the arguments, scripts included. */
  replaced: boolean;
  /** A risky variable set for the command (`LD_PRELOAD=x cmd`, `env PATH=/tmp cmd`): env-words.ts. */
  riskyEnv?: string;
  /** A script string some wrapper runs (watch, env -S). */
  script?: Tok;
}
