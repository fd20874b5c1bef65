// The one message area under the intro: outcomes, refusals and what to do next. It carries the
// error code in data-code so tests and styles can tell messages apart without parsing prose.
import { byId, createElement } from './dom.js'

export type NoticeKind = 'info' | 'success' | 'warning' | 'error'

export interface NoticeAction {
  /** Stable id of the action button, e.g. notice-grant. */
  id: string
  label: string
  /** A navigation (sign-in, re-authorization): a link styled as a button. Without it, a button. */
  href?: string
  /** Runs just before the browser follows the link (which it may stop), or when the button is pressed. */
  onFollow?: (event: MouseEvent) => void
}

export interface Notice {
  kind: NoticeKind
  /** A machine-readable code (error code, auth_error code or a page event). */
  code: string
  text: string
  action?: NoticeAction
}

export function showNotice ({ kind, code, text, action }: Notice): void {
  const notice = byId('notice', HTMLDivElement)
  notice.dataset.kind = kind
  notice.dataset.code = code
  // Problems interrupt (alert); outcomes are announced politely.
  notice.setAttribute('role', kind === 'error' || kind === 'warning' ? 'alert' : 'status')
  byId('notice-text', HTMLParagraphElement).textContent = text
  const actions = byId('notice-actions', HTMLDivElement)
  actions.replaceChildren()
  if (action !== undefined) {
    const control = action.href === undefined
      ? createElement('button', { className: 'button button--primary', text: action.label, attributes: { id: action.id, type: 'button' } })
      : createElement('a', { className: 'button button--primary', text: action.label, attributes: { id: action.id, href: action.href } })
    const { onFollow } = action
    if (onFollow !== undefined) control.addEventListener('click', (event) => { onFollow(event as MouseEvent) })
    actions.append(control)
  }
  actions.hidden = action === undefined
  notice.hidden = false
}

export function hideNotice (): void {
  const notice = byId('notice', HTMLDivElement)
  notice.hidden = true
  delete notice.dataset.code
  byId('notice-actions', HTMLDivElement).replaceChildren()
}

/** The code of the notice shown now, if any. */
export function shownNoticeCode (): string | undefined {
  const notice = byId('notice', HTMLDivElement)
  return notice.hidden ? undefined : notice.dataset.code
}
