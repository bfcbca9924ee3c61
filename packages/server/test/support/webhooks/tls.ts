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

export interface KeyAndCertificate {
  key: string;
  cert: string;
}

/** Certificates a receiver may wrongly present, each with exactly one problem. */
export interface BadCertificates {
  /** Signed by a CA nobody trusts. */
  unknownIssuer: KeyAndCertificate;
  selfSigned: KeyAndCertificate;
  /** Signed by the test CA, for another name. */
  wrongName: KeyAndCertificate;
  /** Signed by the test CA, valid only in January 2020. */
  expired: KeyAndCertificate;
}

let made: { tls: TestTls; dir: string } | undefined;
let bad: BadCertificates | undefined;

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const serverExtensions = (names: string) =>
  `subjectAltName=${names}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`;

function inDirectory(dir: string) {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const makeCa = (name: string, subject: string) =>
    openssl('req', '-x509', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', subject,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const request = (name: string) => openssl('req', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost');
  /** A certificate for `names` signed by the CA called `ca`. */
  const sign = (name: string, ca: string, names: string) => {
    request(name);
    writeFileSync(file(`${name}.ext`), serverExtensions(names));
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.crt`,
      '-days', '2', '-extfile', `${name}.ext`);
  };
  const pair = (name: string): KeyAndCertificate => ({ key: readFileSync(file(`${name}.key`), 'utf8'), cert: readFileSync(file(`${name}.crt`), 'utf8') });
  return { file, openssl, makeCa, request, sign, pair };
}

/** A CA made for this test run and a certificate it signed for localhost and 127.0.0.1. */
export function testTls(): TestTls {
  if (made) return made.tls;
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-webhook-tls-'));
  const { file, makeCa, sign } = inDirectory(dir);
  makeCa('ca', '/CN=Vigil Test CA');
  sign('server', 'ca', 'DNS:localhost,IP:127.0.0.1');
  made = {
    dir,
    tls: {
      ca: readFileSync(file('ca.crt'), 'utf8'),
      caFile: file('ca.crt'),
      key: readFileSync(file('server.key'), 'utf8'),
      cert: readFileSync(file('server.crt'), 'utf8'),
      keyFile: file('server.key'),
      certFile: file('server.crt'),
    },
  };
  return made.tls;
}

/** Certificates for localhost that a sender trusting the test CA must refuse, one per reason. */
export function badCertificates(): BadCertificates {
  if (bad) return bad;
  testTls();
  const { file, openssl, makeCa, request, sign, pair } = inDirectory(made!.dir);
  makeCa('stranger', '/CN=Unknown CA');
  sign('unknown-issuer', 'stranger', 'DNS:localhost,IP:127.0.0.1');
  sign('wrong-name', 'ca', 'DNS:other.example');
  openssl('req', '-x509', ...ecKey, '-keyout', 'self-signed.key', '-out', 'self-signed.crt', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  // `openssl x509` only signs from now on; `openssl ca` takes any validity period.
  request('expired');
  writeFileSync(file('expired.ext'), serverExtensions('DNS:localhost,IP:127.0.0.1'));
  writeFileSync(file('index.txt'), '');
  writeFileSync(file('serial'), '1000\n');
  writeFileSync(
    file('ca.cnf'),
    '[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\npolicy = any\ndefault_md = sha256\n[any]\ncommonName = supplied\n',
  );
  openssl('ca', '-batch', '-config', 'ca.cnf', '-in', 'expired.csr', '-out', 'expired.crt', '-cert', 'ca.crt', '-keyfile', 'ca.key',
    '-startdate', '20200101000000Z', '-enddate', '20200131000000Z', '-extfile', 'expired.ext', '-notext');
  bad = { unknownIssuer: pair('unknown-issuer'), selfSigned: pair('self-signed'), wrongName: pair('wrong-name'), expired: pair('expired') };
  return bad;
}
