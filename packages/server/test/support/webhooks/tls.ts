import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestTls {
  /** PEM of the test CA: give it to the sender (ca option) or a child process (NODE_EXTRA_CA_CERTS). */
  ca: string;
  caFile: string;
  key: string;
  cert: string;
  keyFile: string;
  certFile: string;
}

let made: TestTls | undefined;

/** A CA made for this test run and a certificate it signed for localhost and 127.0.0.1. */
export function testTls(): TestTls {
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-webhook-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Vigil Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    file('server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt',
    '-days', '2', '-extfile', 'server.ext');
  made = {
    ca: readFileSync(file('ca.crt'), 'utf8'),
    caFile: file('ca.crt'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.crt'), 'utf8'),
    keyFile: file('server.key'),
    certFile: file('server.crt'),
  };
  return made;
}
