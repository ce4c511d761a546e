/** The fleet layer: many `talaria serve` hosts on one PostgreSQL (docs/fleet.md). */
export { hostIdentity, verifyHost, HOST_FILE, type HostIdentity } from './identity.js';
export { FleetError, type FleetErrorCode } from './errors.js';
export { startFleetMember, FLEET_CHANNEL, type FleetMember, type FleetMemberOptions } from './member.js';
export { FleetView, hostOnline, parseChange, type FleetChange, type FleetHostState, type FleetSessionState } from './view.js';
