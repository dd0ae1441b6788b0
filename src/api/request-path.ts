/**
 * The path of a request as the router reads it: an absolute-form request line
 * (`GET http://host/v1/channels`) loses its scheme and host, the query goes, and percent-encodings
 * of ordinary characters are decoded (`/%761` is `/v1`), reserved ones (`%2F`) kept, as routing
 * does. Only error messages need it, never the path of a matched route.
 */
export function requestPath(url: string): string {
  let path = url;
  if (path.charCodeAt(0) !== 47) {
    const scheme = path.indexOf('://');
    if (scheme !== -1) {
      const slash = path.indexOf('/', scheme + 3);
      path = slash === -1 ? '/' : path.slice(slash);
    }
  }
  const query = path.indexOf('?');
  if (query !== -1) path = path.slice(0, query);
  if (path.includes('%')) {
    try {
      path = decodeURI(path);
    } catch {
      // Not valid percent-encoding: routing refuses it before any handler runs.
    }
  }
  return path;
}

export const EXCERPT_CHARS = 200;

/** Text from the client shown back in a message, cut to an excerpt. */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
