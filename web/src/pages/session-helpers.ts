/** Helpers of the session page: who won an answer race, and whether the person is typing. */
import { useEffect, useState } from 'react';
import { ServerError } from '../api/server.js';
import { isObj } from '../state/entries.js';

/** Who answered first, when an answer was refused because another one won (409 "already answered by …"). */
export function answeredBy(e: unknown): string | undefined {
  if (!(e instanceof ServerError) || e.code !== 'conflict') return undefined;
  const d = e.data;
  if (isObj(d) && typeof d.answeredBy === 'string') return d.answeredBy;
  const m = /^already answered by (.+)$/.exec(e.message);
  return m ? m[1] : undefined;
}

/** Whether the focus is in a text field (where the number keys type instead of answering). */
export function useTyping(): boolean {
  const [typing, setTyping] = useState(false);
  useEffect(() => {
    const read = (): void => {
      const a = document.activeElement;
      setTyping(!!a && (a.tagName === 'TEXTAREA' || (a.tagName === 'INPUT' && (a as HTMLInputElement).type !== 'checkbox')));
    };
    // After a focusout the new focus is not set yet: read once the event is over.
    let t: ReturnType<typeof setTimeout> | undefined;
    const later = (): void => {
      clearTimeout(t);
      t = setTimeout(read, 0);
    };
    read();
    document.addEventListener('focusin', read);
    document.addEventListener('focusout', later);
    return () => {
      clearTimeout(t);
      document.removeEventListener('focusin', read);
      document.removeEventListener('focusout', later);
    };
  }, []);
  return typing;
}
