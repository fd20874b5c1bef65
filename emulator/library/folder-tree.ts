// Each user's folder tree, in memory. Home is folder 0. Every user starts with the same seeded
// tree (ids 1 to 8), so tests and demos can name a folder without creating it first; folder ids
// are therefore per user (a folder is its owner plus its id), and folders created later are
// numbered from one counter shared by all users, starting at 100, so a created folder's id is
// never also another user's folder. A user's tree is built on first use, so an emulator with
// many users pays only for those who call.
import { EmulatorError } from '../http/emulator-error.js'

export interface Folder {
  folderId: number
  userName: string
  name: string
  /** null for home (0). */
  parentId: number | null
  /** Milliseconds. */
  createdAt: number
  /** Ids of the direct subfolders, in creation order. */
  children: Set<number>
}

export interface FolderTree {
  folder: (userName: string, folderId: number) => Folder | undefined
  /** The direct subfolders, in creation (= id) order. */
  children: (folder: Folder) => Folder[]
  /** Throws 409 folder_exists when a sibling has the name (compared case-insensitively). */
  create: (userName: string, parent: Folder, name: string) => Folder
  rename: (folder: Folder, name: string) => void
  /** The caller checks the folder is empty; home cannot be removed. */
  remove: (folder: Folder) => void
}

const dayMs = 24 * 3600 * 1000

/** A plausible library: [id, name, parent id, created days before the emulator started]. */
const seeds: Array<[number, string, number, number]> = [
  [1, 'Lectures', 0, 420],
  [2, 'Events', 0, 380],
  [3, 'Campus tours', 0, 300],
  [4, 'Interviews', 0, 200],
  [5, 'Archive', 0, 500],
  [6, '2024', 5, 450],
  [7, '2025', 5, 90],
  [8, 'Drafts', 0, 10]
]
const homeCreatedDaysAgo = 600
const firstCreatedFolderId = 100

export function folderNotFound (folderId: number | string): EmulatorError {
  return new EmulatorError(404, 'folder_not_found', `There is no folder ${folderId}.`, { userMessage: 'This folder does not exist (any more).' })
}

function folderExists (name: string): EmulatorError {
  return new EmulatorError(409, 'folder_exists', `A folder named "${name}" already exists here.`, { userMessage: 'There is already a folder with this name here.' })
}

/** Names are compared as people read them: Unicode-normalised, case ignored. */
function sameName (a: string, b: string): boolean {
  return a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase()
}

export function createFolderTree (now: () => number = Date.now): FolderTree {
  const startedAt = now()
  const trees = new Map<string, Map<number, Folder>>()
  let nextFolderId = firstCreatedFolderId

  const treeOf = (userName: string): Map<number, Folder> => {
    let tree = trees.get(userName)
    if (tree !== undefined) return tree
    tree = new Map()
    tree.set(0, { folderId: 0, userName, name: 'Home', parentId: null, createdAt: startedAt - homeCreatedDaysAgo * dayMs, children: new Set() })
    for (const [folderId, name, parentId, daysAgo] of seeds) {
      tree.set(folderId, { folderId, userName, name, parentId, createdAt: startedAt - daysAgo * dayMs, children: new Set() })
      tree.get(parentId)?.children.add(folderId)
    }
    trees.set(userName, tree)
    return tree
  }

  const checkFree = (tree: Map<number, Folder>, parent: Folder, name: string, except?: number): void => {
    for (const id of parent.children) {
      const sibling = tree.get(id)
      if (sibling !== undefined && id !== except && sameName(sibling.name, name)) throw folderExists(name)
    }
  }

  return {
    folder (userName, folderId) {
      return treeOf(userName).get(folderId)
    },
    children (folder) {
      const tree = treeOf(folder.userName)
      return [...folder.children].map((id) => tree.get(id)).filter((child) => child !== undefined)
    },
    create (userName, parent, name) {
      const tree = treeOf(userName)
      checkFree(tree, parent, name)
      const folder: Folder = { folderId: nextFolderId++, userName, name, parentId: parent.folderId, createdAt: now(), children: new Set() }
      tree.set(folder.folderId, folder)
      parent.children.add(folder.folderId)
      return folder
    },
    rename (folder, name) {
      const tree = treeOf(folder.userName)
      const parent = folder.parentId === null ? undefined : tree.get(folder.parentId)
      if (parent !== undefined) checkFree(tree, parent, name, folder.folderId)
      folder.name = name
    },
    remove (folder) {
      if (folder.parentId === null) return
      const tree = treeOf(folder.userName)
      tree.get(folder.parentId)?.children.delete(folder.folderId)
      tree.delete(folder.folderId)
    }
  }
}
