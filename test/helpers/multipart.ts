// A FormData as the bytes and content type of a multipart body, for undici's request(). On Node 24
// request() never sends a FormData body (its body stream yields nothing, and the server answers
// 408 once its header timeout runs out), whichever undici it is, while fetch() and Response
// encode one fine: the form is encoded by Response and sent as bytes.
export async function multipart (form: FormData): Promise<{ body: Buffer, headers: { 'content-type': string } }> {
  const encoded = new Response(form)
  return { body: Buffer.from(await encoded.arrayBuffer()), headers: { 'content-type': encoded.headers.get('content-type') ?? '' } }
}
