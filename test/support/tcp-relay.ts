import { createConnection, createServer, type Socket } from 'node:net';

/** A TCP relay on 127.0.0.1 that fault tests put between a client and a real server. */
export interface TcpRelay {
  readonly port: number;
  /** Cuts every connection open now (the relay keeps accepting). */
  dropAll(): void;
  close(): void;
}

/**
 * Relays each connection to 127.0.0.1:`port`. `wire(client, upstream)` forwards the data each way (and may hold,
 * change or cut it); an error or close of either socket closes both.
 */
export async function tcpRelay(port: number, wire: (client: Socket, upstream: Socket) => void): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const srv = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.add(client).add(upstream);
    wire(client, upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port: (srv.address() as { port: number }).port,
    dropAll,
    close: () => {
      dropAll();
      srv.close();
    },
  };
}
