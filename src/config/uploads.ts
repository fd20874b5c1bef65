// Uploads: the hosts url_upload_direct may point at (required in production), and the operator's
// caps on what a registration may ask of the service.
import type { DeclaredReader } from './declared-reader.js'

export interface UploadSettings {
  allowedHosts: string[]
  maxFilesize: number | undefined
  maxFiles: number | undefined
  maxSize: number | undefined
  fileExtensions: string[] | undefined
}

export function readUploadSettings (read: DeclaredReader, production: boolean): UploadSettings {
  const allowedHosts = read.list('UPLOAD_ALLOWED_HOSTS').map((host) => host.toLowerCase())
  for (const host of allowedHosts) {
    if (!/^[a-z0-9.-]+(:\d+)?$/.test(host)) read.problem('UPLOAD_ALLOWED_HOSTS', `"${host}" is not a host name (host or host:port)`)
  }
  if (production && allowedHosts.length === 0) {
    read.problem('UPLOAD_ALLOWED_HOSTS', 'is required when NODE_ENV=production: the hosts (host or host:port) url_upload_direct may point at, e.g. upload.media.example')
  }
  const extensions = read.list('UPLOAD_FILE_EXTENSIONS').map((ext) => ext.replace(/^\./, '').toLowerCase())
  if (extensions.some((ext) => !/^[a-z0-9]{1,16}$/.test(ext))) read.problem('UPLOAD_FILE_EXTENSIONS', 'must be a comma list of extensions such as jpg,png,mp4')
  return {
    allowedHosts,
    maxFilesize: read.optionalInteger('UPLOAD_MAX_FILESIZE'),
    maxFiles: read.optionalInteger('UPLOAD_MAX_FILES'),
    maxSize: read.optionalInteger('UPLOAD_MAX_SIZE'),
    fileExtensions: extensions.length > 0 ? extensions : undefined
  }
}
