/**
 * One Durable Object per conversation, for live fan-out over WebSockets (PRODUCT.md section 11).
 * It uses the hibernation API: sockets stay connected while the object sleeps, so an idle
 * conversation costs nothing. D1 stays the record of every message; this only delivers.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Bindings } from '../env';

/** The live room of one conversation. */
export class ConversationRoom extends DurableObject<Bindings> {
  /** Accepts a WebSocket upgrade (the route in front has already checked who may listen). */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket')
      return new Response('Expected a WebSocket upgrade.', { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Sends one message to every socket of this conversation; answers how many it reached. */
  async broadcast(message: string): Promise<number> {
    const sockets = this.ctx.getWebSockets();
    for (const socket of sockets) socket.send(message);
    return sockets.length;
  }

  /** Clients only listen; anything they send is ignored. */
  override async webSocketMessage(): Promise<void> {}

  /**
   * Completes the closing handshake (workerd logs an error without this handler). 1005 and 1006
   * say "no code was given" and may not be sent back, so those are answered with a plain 1000.
   */
  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    if (code === 1005 || code === 1006) socket.close(1000, 'closed');
    else socket.close(code, reason);
  }
}
