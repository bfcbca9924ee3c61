import { hkdfSync } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

/** The claims an embed token carries: which organization's dashboard it reads, and its row id (jti). */
export interface EmbedClaims {
  tokenId: string;
  orgId: string;
  dashboardId: string;
  theme: 'light' | 'dark' | null;
  expiresAt: Date;
}

export type Verified = { ok: true; claims: EmbedClaims } | { ok: false; reason: 'expired' | 'invalid'; orgId?: string };

const issuer = 'vigil';
const audience = 'vigil-embed';

/**
 * Embed tokens are compact JWS (HS256 JWTs) signed with a key derived from VIGIL_SECRET_KEY by
 * HKDF, so the key that encrypts stored credentials never signs anything and a token can never be
 * mistaken for another use of the secret.
 */
export class EmbedTokenSigner {
  private readonly key: Uint8Array;

  constructor(secretKey: string) {
    this.key = new Uint8Array(hkdfSync('sha256', secretKey, 'vigil', 'embed-token-signing-v1', 32));
  }

  sign(claims: EmbedClaims, issuedAt: Date): Promise<string> {
    return new SignJWT({ org: claims.orgId, ...(claims.theme ? { theme: claims.theme } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(claims.dashboardId)
      .setJti(claims.tokenId)
      .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
      .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /** An expired token still names its organization (its signature is good), which the iframe page needs for frame-ancestors. */
  async verify(token: string, now: Date): Promise<Verified> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer, audience, currentDate: now, requiredClaims: ['jti', 'sub', 'exp'] });
      if (typeof payload.org !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return { ok: false, reason: 'invalid' };
      const theme = payload.theme === 'light' || payload.theme === 'dark' ? payload.theme : null;
      return {
        ok: true,
        claims: { tokenId: payload.jti, orgId: payload.org, dashboardId: payload.sub, theme, expiresAt: new Date((payload.exp ?? 0) * 1000) },
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) {
        return { ok: false, reason: 'expired', ...(typeof error.payload.org === 'string' ? { orgId: error.payload.org } : {}) };
      }
      return { ok: false, reason: 'invalid' };
    }
  }
}
