// Posts one file straight to a registration's url_upload_direct, as the browser does.
export async function uploadDirect (urlUploadDirect: string, name: string, content: string | Uint8Array, fields: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) form.set(key, value)
  form.set('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name)
  const response = await fetch(urlUploadDirect, { method: 'POST', body: form })
  return { status: response.status, body: await response.json() }
}
