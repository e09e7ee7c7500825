/**
 * The token and the calls to `/ui/api`. The token is kept in memory and sessionStorage and taken out of the
 * address bar; a 401 asks for it again.
 */
export const API = '/ui/api';
const KEY = 'quadguard-ui-token';

export class ApiClient {
  token: string | null = null;

  /** `onUnauthorized` is called on a 401 (the page asks for the token). */
  constructor(private readonly onUnauthorized: (message: string) => void) {}

  /** The token from `?token=` (then removed from the address bar) or from this tab's sessionStorage. */
  readToken(): string | null {
    const params = new URLSearchParams(location.search);
    const t = params.get('token');
    if (t) {
      params.delete('token');
      const q = params.toString();
      history.replaceState(null, '', location.pathname + (q ? `?${q}` : '') + location.hash);
      this.remember(t);
      return t;
    }
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return null;
    }
  }

  remember(t: string): void {
    this.token = t;
    try {
      sessionStorage.setItem(KEY, t);
    } catch {
      // memory only
    }
  }

  forget(): void {
    this.token = null;
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // nothing stored
    }
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token ?? ''}` };
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(API + path, init);
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (res.status === 401) {
      this.onUnauthorized('wrong or missing token');
      throw new Error('unauthorized');
    }
    if (!res.ok) throw new Error(data.error ?? `HTTP ${res.status}`);
    return data;
  }

  /** The live stream of new rows, agents, approvals and pins, from after row `after`. */
  stream(after: number): EventSource {
    return new EventSource(`${API}/stream?after=${after}&token=${encodeURIComponent(this.token ?? '')}`);
  }
}
