// The contract: every JSON shape media-bff's HTTP API answers with or takes, by name, the data of
// the live channel's events included (live-events.ts). The routes answer with these schemas
// (Fastify serialises by them, and /docs describes them as named components), and the browser
// module's types are written from them (public/client/contract.ts, `npm run generate`), so the
// API, its description and the module's types are one copy.
import type { TSchema } from 'typebox'
import { ErrorBody, UpstreamFailure } from './errors.js'
import { ApiLinks, Folder, FolderContents, MediaFile, MediaId, MediaUserInfo, OEmbed, ShareInfo, ShareLink, StoredFile } from './media.js'
import { OtherSessionsEnded, SessionEnded, SessionList, SessionListItem, SessionState, SessionUser, SignedInSession, SignedOut, SignedOutSession } from './session.js'
import { FinishResult, UploadRegistration, UploadRegistrationOptions, UploadRegistrationRequest } from './uploads.js'
import { LiveClosed, LiveFile, LiveReady, LiveResync, LiveSessionEnded } from './live-events.js'
import { AssertionClaims, JwkSet, PublicJwk } from './site-servers.js'
import { DeviceBindingEnded, DeviceBoundSessionInstructions } from './device-binding.js'

export * from './device-binding.js'
export * from './errors.js'
export * from './live-events.js'
export * from './media.js'
export * from './session.js'
export * from './site-servers.js'
export * from './uploads.js'

/** Each schema under the name it has in /docs' components and in the module's types (its title). */
export const CONTRACT: Readonly<Record<string, TSchema>> = Object.fromEntries([
  ErrorBody, UpstreamFailure,
  SessionUser, SignedInSession, SignedOutSession, SessionState, SignedOut, SessionListItem, SessionList, SessionEnded, OtherSessionsEnded,
  UploadRegistrationOptions, UploadRegistrationRequest, UploadRegistration, FinishResult,
  MediaId, ApiLinks, MediaFile, StoredFile, Folder, FolderContents, MediaUserInfo, ShareInfo, ShareLink, OEmbed,
  LiveReady, LiveFile, LiveSessionEnded, LiveResync, LiveClosed,
  AssertionClaims, PublicJwk, JwkSet,
  DeviceBoundSessionInstructions, DeviceBindingEnded
].map((schema) => [titleOf(schema), schema]))

function titleOf (schema: TSchema): string {
  const title = (schema as { title?: unknown }).title
  if (typeof title !== 'string') throw new Error('every schema of the contract has a title: its name')
  return title
}
