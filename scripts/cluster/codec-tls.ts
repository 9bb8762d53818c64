/**
 * The codec endpoint over TLS, in front of the API: the Temporal UI (2.42) sends a person's access token
 * only to an `https://` codec endpoint, and otherwise shows every payload undecoded. Deployed, the API sits
 * behind TLS anyway; on one machine this process terminates it with a self-signed certificate made once
 * into the data folder, and forwards `/codec/*` (nothing else) to the API unchanged.
 *
 * The API counts its rate limits per client address, and every request from here comes from this process:
 * so this front names the client in X-Forwarded-For (replacing whatever the client sent, which it could
 * choose), and the API believes that header only from loopback (TRUSTED_PROXIES=loopback), where this front
 * reaches it: on the same machine in the cluster, in the API container's own network in compose.
 *
 *   CODEC_TLS_PORT, CODEC_TLS_TARGET (the API's address), CODEC_TLS_DIR (certificate and key),
 *   CODEC_TLS_HOST (the address it listens on; unset: 127.0.0.1)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';

function certificate(dir: string): { key: Buffer; cert: Buffer } {
  const keyFile = path.join(dir, 'codec-tls-key.pem');
  const certFile = path.join(dir, 'codec-tls-cert.pem');
  if (!fs.existsSync(keyFile) || !fs.existsSync(certFile)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '825',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    fs.chmodSync(keyFile, 0o600);
  }
  return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) };
}

const port = Number(process.env.CODEC_TLS_PORT);
const target = new URL(process.env.CODEC_TLS_TARGET ?? '');
const server = https.createServer(certificate(process.env.CODEC_TLS_DIR ?? '.'), (req, res) => {
  if (!req.url?.startsWith('/codec/')) {
    res.writeHead(404).end();
    return;
  }
  const headers = {
    ...req.headers,
    'x-forwarded-for': req.socket.remoteAddress ?? '',
    'x-forwarded-proto': 'https',
  };
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.headersSent || res.writeHead(502).end());
  req.pipe(upstream);
});
server.listen(port, process.env.CODEC_TLS_HOST || '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => server.close(() => process.exit(0)));
