import type { RecordingState } from '../../../src/server/contract/index.js';
import { Spinner } from './motion.js';

const count = new Intl.NumberFormat('en-US');
const clock = (at: number): string => new Date(at).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
/** A message, never a stack or a multi-line dump: its first line. */
const firstLine = (s: string): string => s.split('\n', 1)[0]!.trim();

/**
 * Says so when what the page shows is not (yet) in the store: calm while the recorder holds and
 * retries (a status), an alert once part of the session was lost for good. Gone once caught up;
 * the failure stays (the server keeps it in the session's snapshot).
 */
export function RecordingBanner({ recording }: { recording: RecordingState | undefined }) {
  const failed = recording?.failed;
  const delayed = recording?.delayed;
  return (
    <>
      {failed && (
        <p className="notice notice-error banner recording-banner" role="alert">
          <span className="notice-icon" aria-hidden="true">
            !
          </span>
          <span>Some of this session was not saved: {firstLine(failed.message)}</span>
        </p>
      )}
      {delayed && (
        <p className="notice notice-warning banner recording-banner" role="status">
          {/* Still trying: the spinner, not a warning sign (nothing is lost yet). */}
          <span className="notice-icon" aria-hidden="true">
            <Spinner />
          </span>
          <span>
            Not saved yet: {count.format(delayed.frames)} {delayed.frames === 1 ? 'update' : 'updates'} waiting for the
            store since {clock(delayed.since)} — Talaria keeps retrying
          </span>
        </p>
      )}
    </>
  );
}
