import { io, Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../../libs/contracts/src';

export type EventsSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A socket.io client on a gateway's /events namespace, resolved once connected (or rejected). */
export async function connectEvents(baseUrl: string, token?: string, timeoutMs = 10_000): Promise<EventsSocket> {
  const socket: EventsSocket = io(`${baseUrl}/events`, {
    transports: ['websocket'],
    auth: token ? { token } : {},
    reconnection: false,
    timeout: timeoutMs,
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket.io did not connect within ${timeoutMs} ms`)), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('connect_error', (error) => {
      clearTimeout(timer);
      socket.disconnect();
      reject(error);
    });
  });
  return socket;
}
