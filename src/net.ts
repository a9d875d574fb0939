import type { AddressInfo } from 'node:net';

/** The http URL of a listening server's address (IPv6 in brackets). */
export function httpUrl(address: AddressInfo): string {
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Hosts plain http may go to: this machine only (a sandbox, its receivers, a local proxy of the service). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
