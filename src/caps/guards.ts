/**
 * Interface guards of every object the caps face exports: bad arguments are refused at the
 * boundary, before any Talaria code runs (`prompt(42)` never reaches the session).
 */
import './lockdown.js';
import { M } from '@endo/patterns';

const Blocks = M.or(M.string(), M.arrayOf(M.record()));
const Sink = M.remotable('Sink');

export const BootstrapI = M.interface('TalariaCapsBootstrap', {
  fetch: M.call(M.string()).returns(M.promise()),
});

export const LauncherI = M.interface('TalariaLauncher', {
  newSession: M.call()
    .optional(M.splitRecord({}, { provider: M.string(), profile: M.string() }, {}))
    .returns(M.promise()),
  info: M.call().returns(M.record()),
});

export const SessionI = M.interface('TalariaSession', {
  prompt: M.call(Blocks).optional(Sink).returns(M.remotable('Turn')),
  cancel: M.call().returns(M.promise()),
  setModel: M.call(M.string()).returns(M.promise()),
  setMode: M.call(M.string()).returns(M.promise()),
  fork: M.call().returns(M.promise()),
  subscribe: M.call(Sink).optional(M.number()).returns(M.remotable('Subscription')),
  snapshot: M.call().returns(M.record()),
  info: M.call().returns(M.record()),
  reader: M.call().returns(M.remotable('Session')),
  answerPermission: M.call(M.string(), M.string()).returns(M.record()),
  share: M.call(
    M.splitRecord(
      { facet: M.or('controller', 'reader') },
      { expiresIn: M.number(), methods: M.arrayOf(M.string()) },
      {},
    ),
  ).returns(M.string()),
});

export const TurnI = M.interface('TalariaTurn', {
  id: M.call().returns(M.string()),
  result: M.call().returns(M.promise()),
  cancel: M.call().returns(M.promise()),
});

export const SubscriptionI = M.interface('TalariaSubscription', {
  cancel: M.call().returns(M.undefined()),
});

export const ResponderI = M.interface('TalariaPermission', {
  details: M.call().returns(M.record()),
  answer: M.call(M.string()).returns(M.record()),
  share: M.call()
    .optional(M.splitRecord({}, { expiresIn: M.number() }, {}))
    .returns(M.string()),
});

export const DataspaceI = M.interface('TalariaDataspace', {
  assert: M.call(M.record()).returns(M.string()),
  retract: M.call(M.string()).returns(M.boolean()),
  observe: M.call(M.record(), M.remotable('Observer')).returns(M.remotable('Subscription')),
});

export const PeerI = M.interface('TalariaPeerHost', {
  openSession: M.call(M.string()).returns(M.promise()),
  snapshot: M.call(M.string()).returns(M.promise()),
  steer: M.call(M.string(), M.splitRecord({}, { text: M.string(), queued: M.string() }, {})).returns(M.promise()),
  info: M.call().returns(M.record()),
});
