import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every open connection and refuses new ones: the database is gone. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  /**
   * The next answer the target starts to send is thrown away and that connection cut: the server has
   * done the work, the client sees its connection fail (a response lost on the way back).
   */
  loseNextResponse(): void;
  close(): Promise<void>;
}

/** Forwards a local port to `target`, so a test can take a real server away and bring it back. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let losing = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    upstream.prependListener('data', () => {
      if (!losing) return;
      losing = false;
      client.destroy();
      upstream.destroy();
    });
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    restore: () => listen(port),
    loseNextResponse: () => {
      losing = true;
    },
    close: stop,
  };
}
