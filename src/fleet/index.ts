/** The fleet layer: many `talaria serve` hosts on one PostgreSQL (docs/fleet.md). */
export { hostIdentity, verifyHost, HOST_FILE, type HostIdentity } from './identity.js';
export { FleetError, type FleetErrorCode } from './errors.js';
export { startFleetMember, FLEET_CHANNEL, type FleetMember, type FleetMemberOptions } from './member.js';
export {
  FleetView,
  hostOnline,
  parseChange,
  type FleetChange,
  type FleetHostState,
  type FleetSessionState,
} from './view.js';
export { PairService, pairRequest, PAIR_WINDOW_MS, type PairRequest, type PairRefs, type PeerInfo } from './pair.js';
export { PeerLinks, type PeerLinksOptions } from './forward.js';
export { ownerOf, type FleetOwner } from './owner.js';
export { admitHost, checkFleetUrl, hashJoinToken, mintJoinToken, revokeHost, type Admission } from './join.js';
