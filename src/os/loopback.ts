/**
 * Whether a host name or address (IPv6 in brackets or not) is this machine's loopback: what may go
 * without TLS (a server's bind address, an agent's or a fleet host's URL). One check for all of them.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
