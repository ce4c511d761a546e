import { createContext, useContext } from 'react';
import type { Versions } from './branches.js';

/** What a thread row can do beyond drawing its entry: edit and resend a user message, move between its versions. */
export interface ThreadActions {
  readOnly: boolean;
  versions(entryId: string): Versions | undefined;
  /** Edit → resend: a new branch from this message (navigated to). */
  edit(entryId: string, text: string): Promise<void>;
  open(sessionId: string): void;
}

export const ThreadActionsContext = createContext<ThreadActions | undefined>(undefined);

export const useThreadActions = (): ThreadActions | undefined => useContext(ThreadActionsContext);
