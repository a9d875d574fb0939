import type { AddressInfo } from 'node:net';

/** The http URL of a listening server's address (IPv6 in brackets). */
export function httpUrl(address: AddressInfo): string {
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}
