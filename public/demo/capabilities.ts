// What the signed-in person is offered, from the browser module's access to each scope: the
// upload form, or "Allow uploads" before any file is chosen, or why uploading is not possible;
// "New folder", or "Allow creating folders", or nothing; and a hint when sharing will ask first.
import type { Access } from '../client/media-bff-client.js'
import { missingRightText } from './missing-right.js'
import { byId } from './dom.js'

export interface Capabilities {
  upload: Access
  manage: Access
  share: Access
}

export interface CapabilityLinks {
  account: string | undefined
  /** The consent page for one more scope, coming back to this page. */
  consentUrl: (scope: string) => string
}

/** Until user/info and the session are read, nothing is offered yet. */
export function renderCheckingCapabilities (): void {
  byId('upload-checking', HTMLParagraphElement).hidden = false
  for (const id of ['upload-consent', 'upload-unavailable', 'upload-form', 'new-folder', 'grant-manage', 'grant-manage-hint', 'grant-share-hint']) {
    byId(id, HTMLElement).hidden = true
  }
}

export function renderCapabilities (capabilities: Capabilities, { account, consentUrl }: CapabilityLinks): void {
  byId('upload-checking', HTMLParagraphElement).hidden = true
  byId('upload-form', HTMLFormElement).hidden = capabilities.upload !== 'granted'
  byId('upload-consent', HTMLDivElement).hidden = capabilities.upload !== 'grantable'
  byId('allow-uploads', HTMLAnchorElement).href = consentUrl('upload')
  const unavailable = byId('upload-unavailable', HTMLParagraphElement)
  unavailable.hidden = capabilities.upload !== 'denied'
  unavailable.textContent = capabilities.upload === 'denied' ? missingRightText(['upload'], account) : ''

  byId('new-folder', HTMLButtonElement).hidden = capabilities.manage !== 'granted'
  const grantManage = byId('grant-manage', HTMLAnchorElement)
  grantManage.hidden = capabilities.manage !== 'grantable'
  grantManage.href = consentUrl('manage')
  byId('grant-manage-hint', HTMLParagraphElement).hidden = capabilities.manage !== 'grantable'
  if (capabilities.manage !== 'granted') byId('new-folder-form', HTMLFormElement).hidden = true

  byId('grant-share-hint', HTMLParagraphElement).hidden = capabilities.share !== 'grantable'
}

/** The open folder's name wherever the page names the upload target. */
export function renderFolderName (name: string): void {
  for (const id of ['target-folder-name', 'upload-folder-name', 'files-folder-name']) byId(id, HTMLElement).textContent = name
}
