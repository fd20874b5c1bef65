// A direct upload's registration and finish (routes/uploads.ts): what the browser sends, what
// media-bff answers, and (public/client/contract.ts) the browser module's types of both.
import { Type } from 'typebox'
import { StoredFile } from './media.js'

const MAX_BYTES = Number.MAX_SAFE_INTEGER

export const UploadRegistrationOptions = Type.Object({
  max_filesize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES, description: 'Bytes per file, at most' })),
  max_files: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  max_size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES, description: 'Bytes in total, at most' })),
  file_extensions: Type.Optional(Type.Union([
    Type.Array(Type.String({ pattern: '^\\.?[A-Za-z0-9]{1,16}$' }), { maxItems: 50 }),
    Type.String({ pattern: '^\\.?[A-Za-z0-9]{1,16}(,\\s*\\.?[A-Za-z0-9]{1,16}){0,49}$' })
  ], { description: 'The extensions allowed: a list, or one comma-separated string' })),
  no_transcode: Type.Optional(Type.Boolean()),
  autofinish: Type.Optional(Type.Boolean({ description: 'Leave on (the default) for one file: the service finishes the upload once the file is stored, and the browser module finishes it through media-bff too, so the person\'s pages hear of the file. Turn off for a batch and finish after it.' }))
}, { additionalProperties: false, title: 'UploadRegistrationOptions', description: 'Limits asked of the media service for one registration (media-bff may cap them further)' })

export const UploadRegistrationRequest = Type.Object({
  folder_id: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Target folder; 0 is the home folder' }),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The files\' title; no control or bidirectional characters' })),
  options: Type.Optional(UploadRegistrationOptions)
}, { additionalProperties: false, title: 'UploadRegistrationRequest' })

export const UploadRegistration = Type.Object({
  ulid: Type.String(),
  expires: Type.Number({ description: 'Unix time in seconds' }),
  expires_in: Type.Number({ description: 'Seconds left' }),
  url_upload_direct: Type.String({ description: 'Signed URL on the upload host: the browser posts each file there (multipart file, title, folder_id), no credentials needed' }),
  api: Type.Object({
    rel: Type.Optional(Type.String()),
    upload: Type.Optional(Type.String()),
    finish: Type.String()
  }),
  finish_url: Type.String({ description: 'media-bff\'s path that finishes this upload for the session that registered it' }),
  autofinish: Type.Boolean({ description: 'Whether the service finishes the upload by itself after one file (what was asked of it; its default is on). The browser module then still finishes it through finish_url, so the person\'s pages hear of the file.' })
}, { title: 'UploadRegistration', description: 'What POST /uploads/register answers: a pre-authorized upload address and how to finish' })

export const FinishResult = Type.Object({
  status: Type.String(),
  files: Type.Array(StoredFile, { description: 'The files the upload stored' })
}, { title: 'FinishResult' })
