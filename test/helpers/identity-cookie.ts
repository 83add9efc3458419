import { SignJWT } from 'jose'

/**
 * The `svc_user` cookie value the app's login (`app.login.oidc`, provider `default`) would set after
 * an OIDC sign-in of `sub`, signed with the app's `oidc_bff_secret`: what `st.user` reads. It carries
 * a session id (sid) as a real sign-in's does; a cookie without one counts as signed out.
 */
export function identityCookie(sub: string, bffSecret: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ prv: 'default', sid: `sid-${sub}`, ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer('svc-bff')
    .setAudience('svc-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(bffSecret))
}
