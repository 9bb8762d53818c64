/** The provider as a listening HTTP server: in-process under `npm run dev`, its own process elsewhere. */
import type { Server } from 'node:http';
import { identityApp, type IdentityProviderOptions } from './provider';

export interface IdentityServer {
  issuer: string;
  close(): Promise<void>;
}

export async function startIdentityServer(
  options: IdentityProviderOptions & { host: string; port: number; behindProxy?: boolean },
): Promise<IdentityServer> {
  const { app, provider } = identityApp(options);
  // Behind a TLS-terminating proxy the provider must trust X-Forwarded-Proto to issue secure cookies.
  if (options.behindProxy) provider.proxy = true;
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, () => resolve(listening));
    listening.once('error', reject);
  });
  return {
    issuer: options.issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
