import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

/** Files of the cluster's private PKI (all PEM). */
export interface ClusterPki {
  readonly caCertificate: string;
  readonly caKey: string;
  readonly apiServerCertificate: string;
  readonly apiServerKey: string;
  /**
   * Serving certificate of the harness's apiserver proxy (the watch-stall proxy a controller under test can be
   * started through): `localhost` and 127.0.0.1, so clients verify it with the same CA as the apiserver.
   */
  readonly apiServerProxyCertificate: string;
  readonly apiServerProxyKey: string;
  /** Client certificate with `O=system:masters`: cluster admin for the harness, tests and the controller-manager. */
  readonly adminCertificate: string;
  readonly adminKey: string;
  /** ServiceAccount token signing key (private) and its public half for verification. */
  readonly serviceAccountKey: string;
  readonly serviceAccountPublicKey: string;
}

/** Names and addresses the apiserver's serving certificate must cover. */
export interface ApiServerIdentity {
  readonly ipAddresses: readonly string[];
}

interface KeyPair {
  readonly privatePem: string;
  readonly publicPem: string;
  readonly forgePrivate: forge.pki.rsa.PrivateKey;
  readonly forgePublic: forge.pki.rsa.PublicKey;
}

// Node's native RSA generation takes milliseconds; node-forge's pure JS one takes seconds on a busy machine.
function generateRsaKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const forgePrivate = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privatePem: privateKey, publicPem: publicKey, forgePrivate, forgePublic: forge.pki.setRsaPublicKey(forgePrivate.n, forgePrivate.e) };
}

function newCertificate(subjectKey: KeyPair, subject: forge.pki.CertificateField[], validDays: number): forge.pki.Certificate {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = subjectKey.forgePublic;
  // A positive serial: first byte below 0x80.
  certificate.serialNumber = '01' + randomBytes(15).toString('hex');
  const now = Date.now();
  certificate.validity.notBefore = new Date(now - 60 * 60 * 1000);
  certificate.validity.notAfter = new Date(now + validDays * 24 * 60 * 60 * 1000);
  certificate.setSubject(subject);
  return certificate;
}

/** Creates a fresh CA, the serving certificates of the apiserver and of its proxy, an admin client certificate and ServiceAccount keys. */
export function createClusterPki(folder: string, identity: ApiServerIdentity): ClusterPki {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const caKey = generateRsaKeyPair();
  const caSubject = [{ name: 'commonName', value: 'redkite-local-ca' }];
  const ca = newCertificate(caKey, caSubject, 3650);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKey.forgePrivate, forge.md.sha256.create());

  const issue = (key: KeyPair, subject: forge.pki.CertificateField[], extensions: object[]): string => {
    const certificate = newCertificate(key, subject, 365);
    certificate.setIssuer(caSubject);
    certificate.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
      ...extensions,
    ]);
    certificate.sign(caKey.forgePrivate, forge.md.sha256.create());
    return forge.pki.certificateToPem(certificate);
  };

  const apiServerKey = generateRsaKeyPair();
  const apiServerCertificate = issue(apiServerKey, [{ name: 'commonName', value: 'kube-apiserver' }], [
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        ...['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'].map(
          (value) => ({ type: 2, value }),
        ),
        ...identity.ipAddresses.map((ip) => ({ type: 7, ip })),
      ],
    },
  ]);
  const apiServerProxyKey = generateRsaKeyPair();
  const apiServerProxyCertificate = issue(apiServerProxyKey, [{ name: 'commonName', value: 'redkite-apiserver-proxy' }], [
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
  ]);
  const adminKey = generateRsaKeyPair();
  const adminCertificate = issue(
    adminKey,
    [{ name: 'commonName', value: 'redkite-admin' }, { name: 'organizationName', value: 'system:masters' }],
    [{ name: 'extKeyUsage', clientAuth: true }],
  );
  const serviceAccountKey = generateRsaKeyPair();

  const files: ClusterPki = {
    caCertificate: join(folder, 'ca.crt'),
    caKey: join(folder, 'ca.key'),
    apiServerCertificate: join(folder, 'apiserver.crt'),
    apiServerKey: join(folder, 'apiserver.key'),
    apiServerProxyCertificate: join(folder, 'apiserver-proxy.crt'),
    apiServerProxyKey: join(folder, 'apiserver-proxy.key'),
    adminCertificate: join(folder, 'admin.crt'),
    adminKey: join(folder, 'admin.key'),
    serviceAccountKey: join(folder, 'service-account.key'),
    serviceAccountPublicKey: join(folder, 'service-account.pub'),
  };
  const write = (path: string, content: string): void => writeFileSync(path, content, { mode: 0o600 });
  write(files.caCertificate, forge.pki.certificateToPem(ca));
  write(files.caKey, caKey.privatePem);
  write(files.apiServerCertificate, apiServerCertificate);
  write(files.apiServerKey, apiServerKey.privatePem);
  write(files.apiServerProxyCertificate, apiServerProxyCertificate);
  write(files.apiServerProxyKey, apiServerProxyKey.privatePem);
  write(files.adminCertificate, adminCertificate);
  write(files.adminKey, adminKey.privatePem);
  write(files.serviceAccountKey, serviceAccountKey.privatePem);
  write(files.serviceAccountPublicKey, serviceAccountKey.publicPem);
  return files;
}
