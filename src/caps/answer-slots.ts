/**
 * Works around a leak in @endo/captp 4.5.1 (the latest): each incoming call is kept in CapTP's
 * `answers` table under the peer's question id as it arrived (`q-N`), but the peer's CTP_DROP for
 * that question deletes `answers` under the reversed id (`q+N`), so no answer — nor the value it
 * resolved to, e.g. a fresh Exo object — is ever released (~1–8 KB per call; the peer's drops do
 * arrive and are counted). CapTP's reference counts have the same mismatch (`q-N` counted on
 * receipt, `q+N` cleared on drop).
 *
 * The fix is at the message boundary, so the wire stays standard: an incoming peer question id
 * (`questionID`, or a pipelined call's `target`, `q-N`) is renamed to our side's name for it
 * (`q+N`) before CapTP sees it, and an outgoing answer id (`answerID`, `q+N`) back to the peer's
 * name (`q-N`). CapTP then keys the answer, its reference count and the drop's lookup alike.
 * A peer without this rewrite still interoperates (it sends and receives the same wire ids).
 */

type Msg = Record<string, unknown>;

const rename = (v: unknown, from: '-' | '+', to: '-' | '+'): unknown =>
  typeof v === 'string' && v.length > 2 && v[0] === 'q' && v[1] === from ? `q${to}${v.slice(2)}` : v;

/** An incoming message as CapTP should see it (a new object; other messages unchanged). */
export function answerSlotsIn<T>(msg: T): T {
  if (typeof msg !== 'object' || msg === null) return msg;
  const m = msg as Msg;
  if (m.type !== 'CTP_CALL' && m.type !== 'CTP_BOOTSTRAP' && m.type !== 'CTP_TRAP_ITERATE') return msg;
  const out: Msg = { ...m };
  if ('questionID' in m) out.questionID = rename(m.questionID, '-', '+');
  if ('target' in m) out.target = rename(m.target, '-', '+');
  return out as T;
}

/** An outgoing message as the peer expects it on the wire. */
export function answerSlotsOut<T>(msg: T): T {
  if (typeof msg !== 'object' || msg === null) return msg;
  const m = msg as Msg;
  if (m.type !== 'CTP_RETURN' || !('answerID' in m)) return msg;
  return { ...m, answerID: rename(m.answerID, '+', '-') } as T;
}
