// What media-bff answers about the session (GET /auth/session, keepalive, sign-out) and a
// person's sessions (/auth/sessions): routes/auth.ts and routes/sessions.ts answer with these,
// and the browser module's types are written from them (public/client/contract.ts).
import { Type } from 'typebox'

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description })

export const SessionUser = Type.Object({
  id: nullable('The media service\'s id of the person; null when user/info did not say'),
  name: nullable('Their name; null when user/info did not say (or user.info was not granted)'),
  email: nullable('Their e-mail address; null when not known')
}, { title: 'SessionUser' })

export const SignedInSession = Type.Object({
  authenticated: Type.Literal(true),
  user: SessionUser,
  tenant: Type.String({ description: 'The media service tenant signed in with' }),
  scopes: Type.Array(Type.String(), { description: 'The scopes the person granted, e.g. basic, user.info, upload' }),
  expires_at: Type.String({ format: 'date-time', description: 'When the session ends unless used again: the earlier of the two below' }),
  idle_expires_at: Type.String({ format: 'date-time', description: 'When the idle timeout ends it; every call moves it on' }),
  absolute_expires_at: Type.String({ format: 'date-time', description: 'When it ends in any case, however busy (SESSION_ABSOLUTE_TIMEOUT)' }),
  reauth_required: Type.Boolean({ description: 'The media service no longer takes the grant: the next call will ask to sign in again' })
}, { title: 'SignedInSession' })

export const SignedOutSession = Type.Object({
  authenticated: Type.Literal(false),
  login_url: Type.String({ description: 'Where to send the browser to sign in (a navigation, not a fetch)' })
}, { title: 'SignedOutSession' })

export const SessionState = Type.Union([SignedInSession, SignedOutSession], {
  title: 'Session',
  description: 'Who is signed in in this browser, with which scopes, until when; or where to sign in'
})

export const SignedOut = Type.Object({ logged_out: Type.Literal(true) }, { title: 'SignedOut' })

export const SessionListItem = Type.Object({
  id: Type.String({ description: 'Opaque, never the cookie\'s id: pass it to sessions.end' }),
  created_at: Type.String({ format: 'date-time' }),
  last_active_at: Type.String({ format: 'date-time' }),
  device: Type.String({ description: 'A short description from its browser, e.g. "Firefox on Windows"' }),
  network: Type.String({ description: 'The network it began on: an IPv4 /24 or an IPv6 /48' }),
  current: Type.Boolean({ description: 'The session of the browser making the call' })
}, { title: 'SessionListItem', description: 'One of the signed-in person\'s sessions' })

export const SessionList = Type.Object({ sessions: Type.Array(SessionListItem, { description: 'Most recently active first' }) }, { title: 'SessionList' })

export const SessionEnded = Type.Object({
  ended: Type.Integer({ minimum: 0 }),
  signed_out: Type.Boolean({ description: 'It was this browser\'s session: its cookie is cleared' })
}, { title: 'SessionEnded' })

export const OtherSessionsEnded = Type.Object({ ended: Type.Integer({ minimum: 0 }) }, { title: 'OtherSessionsEnded' })
