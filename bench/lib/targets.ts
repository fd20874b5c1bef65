// The request each scenario fires, as autocannon options.
import type { LoadOptions } from './load.js'

/** POST /uploads/register as the website's front-end sends it. */
export const bffRegister = (bffUrl: string, cookie: string): LoadOptions => ({
  url: `${bffUrl}/uploads/register`,
  method: 'POST',
  headers: { cookie, 'x-csrf': '1', 'content-type': 'application/json' },
  body: '{"folder_id":0}'
})

/** The registration media-bff makes, sent straight to the emulator: the floor. */
export const directRegister = (baseUrl: string, accessToken: string): LoadOptions => ({
  url: `${baseUrl}/api/upload/id`,
  method: 'POST',
  headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/x-www-form-urlencoded' },
  body: 'folder_id=0&hide_response=1'
})

export const sessionState = (url: string, cookie?: string): LoadOptions => ({
  url: `${url}/auth/session`,
  method: 'GET',
  headers: cookie === undefined ? {} : { cookie }
})
