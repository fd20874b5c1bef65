// "Your sessions": everywhere this person is signed in (GET /auth/sessions), this device marked,
// a "Sign out" for each other one and "Sign out other sessions" for all of them at once.
// Hooks: #session-list > li[data-testid=session][data-session-id][data-current]
//          with [data-testid=session-device], [data-testid=session-meta], button[data-testid=end-session]
//        #end-other-sessions, #sessions-status
import type { MediaBffClient, SessionListItem } from '../client/media-bff-client.js'
import { byId, createElement } from './dom.js'
import { showNotice } from './notice.js'

export interface SessionsPanel {
  refresh: () => Promise<void>
  clear: () => void
}

export function createSessionsPanel (bff: MediaBffClient, onFailed: (error: unknown) => void): SessionsPanel {
  const list = byId('session-list', HTMLUListElement)
  const status = byId('sessions-status', HTMLParagraphElement)
  const endOthers = byId('end-other-sessions', HTMLButtonElement)

  const refresh = async (): Promise<void> => {
    try {
      render(await bff.sessions.list())
    } catch (error) {
      status.textContent = 'Your sessions could not be read.'
      onFailed(error)
    }
  }

  const render = (sessions: SessionListItem[]): void => {
    const others = sessions.filter((session) => !session.current).length
    status.textContent = others === 0 ? 'You are signed in on this device only.' : `Signed in on this device and ${others} other${others === 1 ? '' : 's'}.`
    endOthers.hidden = others === 0
    list.replaceChildren(...sessions.map((session) => {
      const item = createElement('li', { className: 'session', attributes: { 'data-testid': 'session', 'data-session-id': session.id, 'data-current': String(session.current) } }, [
        createElement('span', { className: 'session__device', text: session.current ? `${session.device} (this device)` : session.device, attributes: { 'data-testid': 'session-device' } }),
        createElement('span', { className: 'session__meta', text: `${session.network} · last active ${when(session.last_active_at)} · signed in ${when(session.created_at)}`, attributes: { 'data-testid': 'session-meta' } })
      ])
      if (!session.current) {
        const end = createElement('button', { className: 'button button--ghost', text: 'Sign out', attributes: { type: 'button', 'data-testid': 'end-session' } })
        end.addEventListener('click', () => {
          end.disabled = true
          bff.sessions.end(session.id).then(async () => {
            showNotice({ kind: 'success', code: 'session_ended', text: `Signed out ${session.device}.` })
            await refresh()
          }, onFailed)
        })
        item.append(end)
      }
      return item
    }))
  }

  endOthers.addEventListener('click', () => {
    endOthers.disabled = true
    bff.sessions.endOthers().then(async (ended) => {
      showNotice({ kind: 'success', code: 'other_sessions_ended', text: `Signed out ${ended} other session${ended === 1 ? '' : 's'}.` })
      await refresh()
    }, onFailed).finally(() => { endOthers.disabled = false })
  })

  return {
    refresh,
    clear: () => {
      list.replaceChildren()
      status.textContent = ''
    }
  }
}

function when (iso: string): string {
  return new Date(iso).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })
}
