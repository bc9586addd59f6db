import { post, errorLines } from "./api.js";

// An input form whose values live in the URL: fields are [key, label, default, type]; every change
// writes the URL (replaceState) and calls onChange after a short pause (recomputed as you type).
export function makeForm(parent, fields, params, onChange) {
  const form = document.createElement("form");
  form.className = "inputs";
  const inputs = {};
  for (const [key, label, def, type] of fields) {
    const l = document.createElement("label");
    l.textContent = label;
    let input;
    if (type === "bool") {
      input = document.createElement("select");
      for (const opt of ["default", "on", "off"]) input.append(new Option(opt, opt));
    } else if (Array.isArray(type)) {
      input = document.createElement("select");
      for (const opt of type) input.append(new Option(opt, opt));
    } else {
      input = document.createElement("input");
      input.type = type === "number" ? "number" : "text";
    }
    input.name = key;
    input.value = params.has(key) ? params.get(key) : def;
    l.append(input);
    form.append(l);
    inputs[key] = { input, type, def };
  }
  parent.append(form);
  let timer = 0;
  const values = () => {
    const out = {};
    for (const [key, { input, type }] of Object.entries(inputs)) {
      if (input.value === "" || input.value === "default") continue;
      if (type === "bool") out[key] = input.value === "on";
      else out[key] = type === "number" ? Number(input.value) : input.value;
    }
    return out;
  };
  const writeUrl = () => {
    const p = new URLSearchParams(location.search);
    for (const [key, { input, def }] of Object.entries(inputs)) {
      if (input.value === "" || input.value === String(def)) p.delete(key);
      else p.set(key, input.value);
    }
    history.replaceState(null, "", `?${p}`);
  };
  form.addEventListener("input", () => {
    writeUrl();
    clearTimeout(timer);
    timer = setTimeout(() => onChange(values()), 250);
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  return values;
}

// A view that posts its form to /api/<endpoint> as the user types: the form, a status line and an
// output area, and only the newest request's answer shown. `show({json, out, status, body, current,
// ms})` renders an accepted answer (HTTP 200 and `accept(json)`) and sets the status text;
// `current()` says whether a newer request has started since (for follow-up requests); `prepare`
// edits the form's values into the request body; `request(body)` replaces the POST to /api/<endpoint>
// (a GET route, or several requests).
export function liveView(app, fields, params, { endpoint, busy, show, prepare = (v) => v, accept = () => true,
  request = (body) => post(endpoint, body) }) {
  const values = makeForm(app, fields, params, (v) => update(v));
  const status = document.createElement("div");
  status.className = "status";
  const out = document.createElement("div");
  app.append(status, out);
  let seq = 0;

  async function update(v) {
    const mine = ++seq;
    const current = () => mine === seq;
    const body = prepare(v);
    status.textContent = busy;
    const t0 = performance.now();
    let answer;
    try {
      answer = await request(body);
    } catch (e) {
      answer = { status: 0, json: { errors: [{ rule: "RB-SERVE-DOWN", message: `no answer from the server (${e})` }] } };
    }
    const { status: code, json } = answer;
    if (!current()) return;  // a newer request is on its way
    out.textContent = "";
    if (code !== 200 || !accept(json)) {
      status.dataset.state = "error";
      status.textContent = errorLines(json).join("\n");
      return;
    }
    status.dataset.state = "ok";
    await show({ json, out, status, body, current, ms: () => performance.now() - t0 });
    // The first answer drawn: the page's first render, as the browser test and BENCHMARKS.md read it.
    if (!performance.getEntriesByName("rb-first-render").length) performance.mark("rb-first-render");
  }
  update(values());
}

export function figure(parent, name, title) {
  const f = document.createElement("figure");
  f.dataset.figure = name;
  const h = document.createElement("h3");
  h.textContent = title;
  f.append(h);
  parent.append(f);
  return f;
}

export const gib = (b) => b / 2 ** 30;

// A layout of the --json bodies in one line, as the CLI prints it: CP with its exchange where CP runs
// another than the ring ("CP8 (a2a)"; the JSON has cp_comm_type only then).
export function layoutText(l) {
  const cp = `CP${l.cp}${l.cp > 1 && l.cp_comm_type && l.cp_comm_type !== "p2p" ? ` (${l.cp_comm_type})` : ""}`;
  return `TP${l.tp} PP${l.pp}${l.vp > 1 ? ` VP${l.vp}` : ""} ${cp} EP${l.ep} DP${l.dp} mbs${l.mbs}`;
}
