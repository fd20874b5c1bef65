// The media service operations media-bff relays under /api/, as typed calls. Ids are checked
// before anything is sent; answers are read without trusting their shape.
import { clientError } from './errors.js'
import type { CallSettings, HttpMethod } from './http.js'
import { callBff, withConsent } from './http.js'
import { record, records } from './json.js'
import type { CallOptions, Folder, FolderContents, MediaFile, MediaId, MediaUserInfo, OEmbed, ShareInfo, ShareLink, ShareLinkOptions } from './types.js'
import { apiPath, expiry, idSegment } from './urls.js'

export type ApiMethod = HttpMethod

export interface RelayCalls {
  /**
   * One media service operation through media-bff's relay: `path` is relative to `/api/`
   * (`'folders/0/contents?files=0'`). Every call carries `X-CSRF: 1`, writes a JSON body; an empty answer
   * (204) resolves to undefined. Only the operations media-bff allowlists are relayed.
   */
  api: <T = unknown>(method: ApiMethod, path: string, body?: Record<string, unknown>, options?: CallOptions) => Promise<T>
  /** The signed-in user and the scopes the account is entitled to (needs `user.info`). */
  userInfo: (options?: CallOptions) => Promise<MediaUserInfo>
  folders: {
    /** Needs `basic`. */
    get: (id: MediaId, options?: CallOptions) => Promise<Folder>
    /** Subfolders and files; leave one out with `{ folders: false }` or `{ files: false }`. Needs `basic`. */
    contents: (id: MediaId, options?: { folders?: boolean, files?: boolean } & CallOptions) => Promise<FolderContents>
    /** Creates a folder inside `parentId` (0 for home). Needs `manage`. */
    create: (parentId: MediaId, name: string, options?: CallOptions) => Promise<Folder>
    /** Needs `manage`. */
    rename: (id: MediaId, name: string, options?: CallOptions) => Promise<Folder>
    /** Needs `manage`. */
    remove: (id: MediaId, options?: CallOptions) => Promise<void>
    /** Needs `share`. */
    share: (id: MediaId, options?: CallOptions) => Promise<ShareInfo>
  }
  files: {
    /** Needs `basic`. */
    get: (id: MediaId, options?: CallOptions) => Promise<MediaFile>
    /** Needs `manage`. */
    update: (id: MediaId, changes: { title: string }, options?: CallOptions) => Promise<MediaFile>
    /** Needs `manage`. */
    remove: (id: MediaId, options?: CallOptions) => Promise<void>
    /** Needs `share`. */
    share: (id: MediaId, options?: CallOptions) => Promise<ShareInfo>
    /** One link for one or more files. Needs `share`. */
    shareLink: (ids: readonly MediaId[], options?: ShareLinkOptions & CallOptions) => Promise<ShareLink>
  }
  /** oEmbed description of a share URL. Needs `basic`. */
  oembed: (url: string, options?: CallOptions) => Promise<OEmbed>
}

export function relayCalls (settings: CallSettings): RelayCalls {
  const api = async <T = unknown>(method: ApiMethod, path: string, body?: Record<string, unknown>, options: CallOptions = {}): Promise<T> => {
    if (method === 'GET' && body !== undefined) throw clientError('A GET call to media-bff cannot carry a body.', 'body')
    return await withConsent(settings, options, async () => await callBff<T>(settings, method, `/api/${apiPath(path)}`, body, { ...callOptions(options), emptyAnswer: true }))
  }
  const one = async (method: ApiMethod, path: string, body?: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>> => record(await api(method, path, body, options))
  const share = async (kind: 'files' | 'folders', id: MediaId, options?: CallOptions): Promise<ShareInfo> => await api<ShareInfo>('GET', `${kind}/${idSegment(id)}/share`, undefined, options)
  return {
    api,
    userInfo: async (options) => await one('GET', 'user/info', undefined, options) as MediaUserInfo,
    folders: {
      get: async (id, options) => await one('GET', `folders/${idSegment(id)}`, undefined, options) as Folder,
      contents: async (id, { folders, files, ...options } = {}) => {
        const query = new URLSearchParams()
        if (folders !== undefined) query.set('folders', folders ? '1' : '0')
        if (files !== undefined) query.set('files', files ? '1' : '0')
        const search = query.toString()
        const answer = await one('GET', `folders/${idSegment(id)}/contents${search === '' ? '' : `?${search}`}`, undefined, options)
        return { ...answer, folders: records(answer.folders) as Folder[], files: records(answer.files) as MediaFile[] }
      },
      create: async (parentId, name, options) => await one('POST', `folders/${idSegment(parentId, 'parent_id')}`, { name }, options) as Folder,
      rename: async (id, name, options) => await one('PUT', `folders/${idSegment(id)}`, { name }, options) as Folder,
      remove: async (id, options) => { await api('DELETE', `folders/${idSegment(id)}`, undefined, options) },
      share: async (id, options) => await share('folders', id, options)
    },
    files: {
      get: async (id, options) => await one('GET', `files/${idSegment(id)}`, undefined, options) as MediaFile,
      update: async (id, { title }, options) => await one('PUT', `files/${idSegment(id)}`, { title }, options) as MediaFile,
      remove: async (id, options) => { await api('DELETE', `files/${idSegment(id)}`, undefined, options) },
      share: async (id, options) => await share('files', id, options),
      shareLink: async (ids, { download, expires, ...options } = {}) => {
        if (ids.length === 0) throw clientError('Name at least one file to share.', 'files')
        const files = ids.map((id) => Number(idSegment(id, 'files')))
        return await one('POST', 'files/0/share/link', {
          files,
          ...(download === undefined ? {} : { download }),
          ...(expires === undefined ? {} : { expires: expiry(expires) })
        }, options) as ShareLink
      }
    },
    oembed: async (url, options) => await one('GET', `oembed?${new URLSearchParams({ url }).toString()}`, undefined, options) as OEmbed
  }
}

/** Only the call options, whatever else an options object carried. */
export function callOptions ({ signal, timeoutMs }: CallOptions = {}): CallOptions {
  return { ...(signal === undefined ? {} : { signal }), ...(timeoutMs === undefined ? {} : { timeoutMs }) }
}
