// Talking to the server (docs/gui.md): every call resolves to the parsed body or throws an
// ApiError whose message is the server's own `{"error"}` text, so callers can show it as is.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** Calls the API; `body` (an object) is sent as JSON. Returns JSON, text, or null (204). */
export async function api(path, { method = "GET", body } = {}) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(`cannot reach the server (${err.message})`, 0);
  }
  if (!response.ok) throw new ApiError(await errorText(response), response.status);
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response.text();
}

/** The server's one-line reason, or the HTTP status when the body has none. */
async function errorText(response) {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON: fall through to the raw text
  }
  const trimmed = text.trim();
  return trimmed && trimmed.length < 300
    ? trimmed
    : `${response.status} ${response.statusText || "error"}`;
}

/** A message for anything thrown: ApiError's text, else the error's own message. */
export function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

export const post = (path, body = {}) => api(path, { method: "POST", body });
