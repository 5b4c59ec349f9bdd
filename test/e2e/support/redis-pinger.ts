/**
 * `tsx redis-pinger.ts <host> [port]`: keeps ONE connection to Redis and sends a PING on it every 100 ms,
 * printing `{"sent","answered","outstanding"}` after each. Never reconnects (a partition must show as
 * unanswered PINGs on the established connection, not as a new one); exits 1 when the connection closes.
 * Used by the fault tests as a stand-in for a controller's Redis connection (see fault-probes.ts).
 */
import { connect } from 'node:net';

const [host, port = '6379'] = process.argv.slice(2);
if (!host) {
  console.error('usage: redis-pinger.ts <host> [port]');
  process.exit(2);
}

const PING = '*1\r\n$4\r\nPING\r\n';
const PONG = '+PONG\r\n';
let sent = 0;
let answered = 0;
let received = '';
const report = (): void => console.log(JSON.stringify({ sent, answered, outstanding: sent - answered }));

const socket = connect({ host, port: Number(port) });
socket.setEncoding('utf8');
socket.on('data', (chunk: string) => {
  received += chunk;
  while (received.startsWith(PONG)) {
    received = received.slice(PONG.length);
    answered++;
  }
});
socket.on('connect', () => {
  setInterval(() => {
    socket.write(PING);
    sent++;
    report();
  }, 100);
});
socket.on('close', () => process.exit(1));
socket.on('error', (error) => {
  console.error(`redis-pinger: ${error.message}`);
  process.exit(1);
});
