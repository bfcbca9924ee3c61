import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const version = 'v1';

/** The configured secret key is any string of 32+ characters; AES-256 wants exactly 32 bytes. */
const aesKey = (secretKey: string): Buffer => createHash('sha256').update(secretKey, 'utf8').digest();

/**
 * AES-256-GCM with a fresh 12-byte nonce: `v1.<nonce>.<tag>.<ciphertext>`, each part base64url.
 * The tag makes a tampered or wrongly keyed value fail to decrypt instead of yielding garbage.
 */
export function encryptSecret(secretKey: string, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(secretKey), nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [version, ...[nonce, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

export function decryptSecret(secretKey: string, sealed: string): string {
  const [tag, nonce, authTag, ciphertext] = sealed.split('.');
  if (tag !== version || nonce === undefined || authTag === undefined || ciphertext === undefined) {
    throw new Error('The stored secret is not in a format this version of Vigil can read.');
  }
  const decipher = createDecipheriv('aes-256-gcm', aesKey(secretKey), Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(Buffer.from(authTag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('The stored secret cannot be decrypted: VIGIL_SECRET_KEY is not the key it was encrypted with.');
  }
}
