// The media service's answers as media-bff relays them under /api/ (routes/relay-schemas.ts) and
// the browser module types them: the shapes its own clients rely on (the service publishes none),
// every field optional and more allowed, since the relay passes the service's JSON on as it is,
// links to the service's API rewritten to media-bff's /api/ (src/relay/local-links.ts). A page
// reads every field as untrusted. StoredFile is narrower: what media-bff itself reads from the
// service and passes on (a finish's files, the live channel's file events).
import { Type, type TSchema } from 'typebox'

const loose = { additionalProperties: true }

export const MediaId = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,18}$' })], {
  title: 'MediaId',
  description: 'A folder or file id: a whole number, 0 or more (0 is the home folder); some answers give it as a string'
})

/** Links in relayed answers: media-bff rewrites those to the service's /api/ to its own. */
export const ApiLinks = Type.Record(Type.String(), Type.String(), {
  title: 'ApiLinks',
  description: 'Links to related operations (self, contents, share, ...), on media-bff\'s /api/ when they pointed at the service\'s API; check one with safeHttpUrl before it goes into an href'
})

const when = (description: string): TSchema => Type.Union([Type.String(), Type.Number()], { description })

export const MediaFile = Type.Object({
  file_id: Type.Optional(MediaId),
  folder_id: Type.Optional(MediaId),
  title: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
  size: Type.Optional(Type.Number({ description: 'Bytes' })),
  mime_type: Type.Optional(Type.String()),
  created: Type.Optional(when('When it was stored: a date or Unix seconds, as the service says it')),
  status: Type.Optional(Type.String({ description: '`processing` until the service has transcoded it (it cannot be played or embedded yet), then `ready`' })),
  urls: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Its links by kind; `file` is its direct link' })),
  api: Type.Optional(ApiLinks)
}, { ...loose, title: 'MediaFile', description: 'A file, as the media service describes it' })

export const StoredFile = Type.Object({
  file_id: Type.Optional(MediaId),
  folder_id: Type.Optional(MediaId),
  title: Type.Optional(Type.String({ description: 'Plain text: no control or bidirectional characters' })),
  filename: Type.Optional(Type.String({ description: 'Plain text: no control or bidirectional characters' })),
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'Bytes' })),
  status: Type.Optional(Type.String({ description: '`processing` until the service has transcoded it, then `ready`' })),
  urls: Type.Optional(Type.Object({ file: Type.Optional(Type.String({ description: 'Its direct link, only ever on the tenant\'s own origin' })) }))
}, { title: 'StoredFile', description: 'A file as media-bff read it from the service and passes it on: the documented fields only, each checked' })

export const Folder = Type.Object({
  folder_id: Type.Optional(MediaId),
  name: Type.Optional(Type.String()),
  parent_id: Type.Optional(Type.Union([MediaId, Type.Null()], { description: 'null for the home folder (0)' })),
  created: Type.Optional(when('When it was made: a date or Unix seconds')),
  folder_count: Type.Optional(Type.Integer()),
  file_count: Type.Optional(Type.Integer()),
  api: Type.Optional(ApiLinks)
}, { ...loose, title: 'Folder', description: 'A folder, as the media service describes it' })

export const FolderContents = Type.Object({
  folder_id: Type.Optional(MediaId),
  folders: Type.Optional(Type.Array(Folder, { description: 'Absent when not asked for (folders=0)' })),
  files: Type.Optional(Type.Array(MediaFile, { description: 'Absent when not asked for (files=0)' }))
}, { ...loose, title: 'FolderContents', description: 'A folder\'s subfolders and files' })

export const MediaUserInfo = Type.Object({
  user_id: Type.Optional(MediaId),
  username: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  scopes: Type.Optional(Type.Array(Type.String(), { description: 'The scopes the account is entitled to (what it could grant), not what this session granted' }))
}, { ...loose, title: 'MediaUserInfo', description: 'The signed-in user, as the media service describes them' })

export const ShareInfo = Type.Object({
  file_id: Type.Optional(MediaId),
  folder_id: Type.Optional(MediaId),
  url: Type.Optional(Type.String({ description: 'Its public page' })),
  embed: Type.Optional(Type.String({ description: 'HTML to embed it: the service\'s, untrusted' })),
  objects: Type.Optional(Type.Object({
    file: Type.Optional(Type.Object({ url: Type.Optional(Type.String()) }, loose))
  }, { ...loose, description: 'For a file: its direct link at file.url, through media-bff\'s /api/ when it is an API link' }))
}, { ...loose, title: 'ShareInfo', description: 'How a file or folder is shared: its public page and the HTML to embed it' })

export const ShareLink = Type.Object({
  status: Type.Optional(Type.String()),
  link: Type.Optional(Type.String({ description: 'The link to hand out' })),
  files: Type.Optional(Type.Array(MediaId)),
  download: Type.Optional(Type.Boolean()),
  expires: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()], { description: 'Unix seconds or a date, as the service says it; null or absent when it never expires' }))
}, { ...loose, title: 'ShareLink', description: 'A share link for one or more files' })

export const OEmbed = Type.Object({
  type: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  html: Type.Optional(Type.String({ description: 'The service\'s HTML, untrusted' })),
  width: Type.Optional(Type.Number()),
  height: Type.Optional(Type.Number()),
  provider_name: Type.Optional(Type.String()),
  thumbnail_url: Type.Optional(Type.String())
}, { ...loose, title: 'OEmbed', description: 'oEmbed (https://oembed.com) description of a shared file' })
