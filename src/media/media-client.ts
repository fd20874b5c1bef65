// The media service's API over one pooled undici agent, with a deadline on every call (the
// agent's connect and headers timeouts, then a deadline on the body). It knows
// the wire format and nothing of sessions or HTTP routes.
import { Agent, type Dispatcher } from 'undici'
import { UpstreamError, retryAfterSeconds, saysTokenInvalid, serviceErrorFields, toUpstreamError } from './upstream-error.js'
import { readCappedText } from '../capped-body.js'
import { readRegistration, type UploadRegistration } from './read-registration.js'
import { readFinishResult, type FinishResult } from './read-finish-result.js'
import { readMediaFile, type MediaFileView } from './read-media-file.js'
import { readUserInfo, type UserInfo } from './read-user-info.js'
import { withRequestId } from '../request-id.js'

export type { UploadRegistration } from './read-registration.js'
export type { FinishResult } from './read-finish-result.js'
export type { MediaFileView } from './read-media-file.js'
export type { UserInfo } from './read-user-info.js'

export interface MediaClientOptions {
  timeoutMs: number
  /** Called after every call, for metrics: endpoint name, HTTP status (0 without one), seconds. */
  onCall?: (endpoint: string, status: number, seconds: number) => void
}

export type UploadFields = Record<string, string | number | boolean>

export function createMediaClient (options: MediaClientOptions) {
  const dispatcher: Dispatcher = new Agent({
    connections: 64,
    keepAliveTimeout: 10_000,
    connectTimeout: options.timeoutMs,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs
  })

  /** `requestId`: the id of the request the call is made for (src/request-id.ts), sent along. */
  async function call (endpoint: string, url: string, init: { method: string, token: string, form?: UploadFields, requestId: string | undefined }): Promise<unknown> {
    const started = performance.now()
    let status = 0
    try {
      const headers = withRequestId({ authorization: `Bearer ${init.token}`, accept: 'application/json' }, init.requestId)
      let body: string | undefined
      if (init.form !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded'
        body = new URLSearchParams(Object.entries(init.form).map(([k, v]) => [k, String(v)])).toString()
      }
      // The agent's timeouts bound the wait for the status line and every gap in the body; the
      // deadline bounds the whole body. No AbortSignal per call: a timer and a signal for each
      // of thousands of calls a second cost more than the call's own JavaScript.
      const response = await dispatcher.request({
        ...splitUrl(url),
        method: init.method as Dispatcher.HttpMethod,
        headers,
        body
      })
      status = response.statusCode
      const text = await readCappedText(response.body, undefined, started + options.timeoutMs)
      const parsed = parseJson(text)
      if (status < 200 || status > 299) {
        const fields = serviceErrorFields(parsed)
        // Only a rejected token is retried (withAccessToken), writes included: see saysTokenInvalid.
        // Any other 4xx is the service refusing what was asked (a folder that is not there, say):
        // passed on with its status, as the relay passes it on; a 5xx or another 401 is a 502.
        const failure = status === 401 ? (saysTokenInvalid(response.headers, parsed) ? 'token_rejected' : 'http') : status >= 400 && status <= 499 ? 'refused' : 'http'
        throw new UpstreamError(failure, endpoint, `${endpoint} answered ${status}`, status, fields, failure === 'refused' ? retryAfterSeconds(response.headers['retry-after']) : undefined)
      }
      if (parsed === undefined) throw new UpstreamError('malformed', endpoint, `${endpoint} answered with a body that is not JSON`, status)
      return parsed
    } catch (error) {
      throw toUpstreamError(endpoint, error)
    } finally {
      options.onCall?.(endpoint, status, (performance.now() - started) / 1000)
    }
  }

  return {
    dispatcher,

    async getUserInfo (apiUrl: string, token: string, requestId?: string): Promise<UserInfo> {
      return readUserInfo(await call('user_info', `${apiUrl}/user/info`, { method: 'GET', token, requestId }))
    },

    async registerUpload (apiUrl: string, token: string, fields: UploadFields, requestId?: string): Promise<UploadRegistration> {
      const body = await call('upload_id', `${apiUrl}/upload/id`, { method: 'POST', token, form: fields, requestId })
      return readRegistration(body, apiUrl)
    },

    /** One file as the service describes it now (`GET files/:id`): a webhook's hint, checked. */
    async getFile (apiUrl: string, token: string, fileId: number, requestId?: string): Promise<MediaFileView> {
      return readMediaFile(await call('file', `${apiUrl}/files/${fileId}`, { method: 'GET', token, requestId }), new URL(apiUrl).origin)
    },

    async finishUpload (finishUrl: string, token: string, requestId?: string): Promise<FinishResult> {
      const body = await call('finish', finishUrl, { method: 'DELETE', token, requestId })
      return readFinishResult(body, new URL(finishUrl).origin)
    },

    async close (): Promise<void> {
      await dispatcher.close()
    }
  }
}

export type MediaClient = ReturnType<typeof createMediaClient>

function splitUrl (url: string): { origin: string, path: string } {
  const parsed = new URL(url)
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }
}

function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
