/**
 * The database's bookmark of the visitor's last write (docs/design/scale.md): intake answers it in
 * `X-EGW-Bookmark`, and the widget sends it with its next read of the thread, so that read is never
 * older than what the visitor just wrote, whichever replica answers. Kept beside the session.
 */
const HEADER = 'X-EGW-Bookmark';

const keyOf = (channelKey: string) => `egw:${channelKey}:bookmark`;

/** Keeps the bookmark a response carries, if any. */
export function keepBookmark(channelKey: string, response: Response): void {
  const bookmark = response.headers.get(HEADER);
  try {
    if (bookmark) localStorage.setItem(keyOf(channelKey), bookmark);
  } catch {}
}

/** The header to read with: the last bookmark kept, or nothing. */
export function bookmarkHeader(channelKey: string): Record<string, string> {
  try {
    const bookmark = localStorage.getItem(keyOf(channelKey));
    return bookmark ? { [HEADER]: bookmark } : {};
  } catch {
    return {};
  }
}
