/**
 * The caps face: sessions as object capabilities over CapTP (@endo/captp) on a WebSocket.
 * Importing it locks the process down (SES) — see lockdown.ts for why that is safe here.
 */
export { CapsHost, type CapsHostOptions, type CapsConnection } from './host.js';
export { startCapsServer, capsUpgradeHandler, serveSocket, type CapsServer, type CapsWsOptions } from './ws.js';
export { connectCaps, makeEventSink, makeFactObserver, E, Far } from './client.js';
export type {
  CapsClient,
  CapsSession,
  CapsTurn,
  CapsLauncher,
  CapsPermission,
  CapsDataspace,
  CapsSubscription,
  ConnectCapsOptions,
} from './client.js';
export {
  RefStore,
  FACET_METHODS,
  secretOf,
  type RefRow,
  type RefFacet,
  type RefKind,
  type Minted,
  type MintInput,
} from './refs.js';
export { Dataspace, type Fact, type Pattern, type FactObserver } from './dataspace.js';
export { CapsError, type CapsErrorCode } from './errors.js';
export type { FactChange } from './dataspace-facet.js';
export type { ExportCount } from './export-count.js';
