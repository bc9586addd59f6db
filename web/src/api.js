// The JSON API (docs/serve.md): bodies are the CLI flags' keys, responses what `--json` prints.
export async function post(route, body) {
  const res = await fetch(`/api/${route}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),  // a string goes as it is (a record to check)
  });
  const json = await res.json();
  return { status: res.status, exitCode: Number(res.headers.get("X-Recipebook-Exit-Code")), json };
}

// GET /api/<route>?<params>: the same answer shape as post().
export async function get(route, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v != null)).toString();
  const res = await fetch(`/api/${route}${q ? `?${q}` : ""}`);
  const json = await res.json();
  return { status: res.status, exitCode: Number(res.headers.get("X-Recipebook-Exit-Code")), json };
}

// The CLI's error object as text lines: "RB-INPUT: message (fix: ...)".
export function errorLines(json) {
  return (json.errors || []).map((e) => `${e.rule}: ${e.message}${e.fix ? ` (fix: ${e.fix})` : ""}`);
}
