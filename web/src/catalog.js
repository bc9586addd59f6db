// The catalog view: the recipes filtered by model, GPU, mode, kind (GET /api/catalog = `list --json`),
// and one record (?recipe=NAME, GET /api/recipes/NAME = `show NAME --json`) with its measurements
// against the estimate of each measured run, and the findings `check` makes of its text
// (POST /api/check). The record is checked as the JSON `show` prints (JSON is YAML), so a
// finding's line is a line of the record text shown beside it.
import * as Plot from "@observablehq/plot";
import { get, post, errorLines } from "./api.js";
import { liveView, figure } from "./form.js";
import { findingsFigure } from "./estimate.js";

const fields = [
  ["model", "model (name, alias or family)", "", "text"],
  ["gpu", "GPU", "", "text"],
  ["gpus", "GPUs", "", "number"],
  ["mode", "mode", "", ["", "pretrain", "sft", "peft"]],
  ["kind", "kind", "", ["", "library", "performance", "verified", "measured"]],
  ["measured", "measured only", "", ["", "true"]],
];

const kShownRows = 200;  // more rows than this are counted, not drawn

function cell(text) {
  return Object.assign(document.createElement("td"), { textContent: text == null ? "" : String(text) });
}

// A record may leave its layout out (`layout: null` in list --json).
function layoutText(l) {
  if (!l) return "not recorded";
  return `TP${l.tp} PP${l.pp}${l.vp > 1 ? ` VP${l.vp}` : ""} CP${l.cp} EP${l.ep} DP${l.dp} mbs${l.mbs}`;
}

// The selected recipe lives in the URL like every input, so a link opens the same record.
function selectRecipe(name) {
  const p = new URLSearchParams(location.search);
  p.set("recipe", name);
  history.replaceState(null, "", `?${p}`);
}

export function catalogView(app, params) {
  const detail = document.createElement("div");
  detail.className = "record";
  let detailSeq = 0;
  async function showRecipe(name) {
    const mine = ++detailSeq;
    detail.textContent = `loading ${name}…`;
    const { status, json } = await get(`recipes/${encodeURIComponent(name)}`);
    if (mine !== detailSeq) return;
    detail.textContent = "";
    if (status !== 200) {
      const e = figure(detail, "record-error", `No record ${name}`);
      e.append(Object.assign(document.createElement("pre"), { textContent: errorLines(json).join("\n") }));
      return;
    }
    await renderRecord(detail, json, () => mine === detailSeq);
  }

  liveView(app, fields, params, {
    endpoint: "catalog",
    busy: "listing…",
    request: (body) => get("catalog", body),
    accept: (json) => Array.isArray(json),
    show({ json, out, status }) {
      status.textContent = `${json.length} recipes${json.length > kShownRows ? ` (the first ${kShownRows} shown)` : ""}`;
      const figs = document.createElement("div");
      figs.className = "figures";
      out.append(figs, detail);
      const f = figure(figs, "recipes", "Recipes (click one for its record)");
      const t = document.createElement("table");
      t.className = "recipes";
      const head = ["name", "kind", "mode", "model", "GPUs", "seq", "gbs", "layout", "precision", "best tokens/s/GPU"];
      t.createTHead().insertRow().append(...head.map((h) => Object.assign(document.createElement("th"), { textContent: h })));
      const body = t.createTBody();
      for (const r of json.slice(0, kShownRows)) {
        const row = body.insertRow();
        const link = Object.assign(document.createElement("a"), { href: "#", textContent: r.name });
        link.addEventListener("click", (e) => {
          e.preventDefault();
          selectRecipe(r.name);
          showRecipe(r.name);
        });
        const name = document.createElement("td");
        name.append(link);
        row.append(name, ...[r.kind, r.mode, r.model, `${r.gpus} x ${r.gpu}`, r.seq, r.gbs, layoutText(r.layout),
          r.layout ? r.layout.precision : "", r.best_tokens_per_s_per_gpu == null ? "" : r.best_tokens_per_s_per_gpu.toFixed(0)].map(cell));
      }
      f.append(t);
      const chosen = new URLSearchParams(location.search).get("recipe");
      if (chosen) showRecipe(chosen);
    },
  });
}

async function renderRecord(parent, r, current) {
  const figs = document.createElement("div");
  figs.className = "figures";
  parent.append(figs);
  const head = figure(figs, "record", `Record ${r.name}`);
  const dl = document.createElement("table");
  dl.className = "summary";
  for (const [k, v] of [["kind", r.kind], ["mode", r.mode], ["model", r.model], ["GPUs", `${r.gpus} x ${r.gpu}`],
    ["layout", layoutText(r.layout)], ["framework", r.framework], ["source", r.source], ["file", r.file]])
    dl.insertRow().append(cell(k), cell(v));
  head.append(dl);

  const preds = (r.predictions || []).filter((p) => p.measured_tokens_per_s_per_gpu > 0);
  const mp = figure(figs, "measured", "Measured vs predicted tokens/s/GPU");
  if (!preds.length) {
    mp.append(Object.assign(document.createElement("p"), {
      textContent: r.predictions_none ? `no prediction: ${r.predictions_none}` : "no measurements in this record" }));
  } else {
    const t = document.createElement("table");
    t.createTHead().insertRow().append(...["release", "GPUs", "precision", "measured", "predicted", "measured / predicted"]
      .map((h) => Object.assign(document.createElement("th"), { textContent: h })));
    const body = t.createTBody();
    for (const p of preds)
      body.insertRow().append(...[p.release, `${p.gpus} x ${p.gpu}`, p.precision, p.measured_tokens_per_s_per_gpu.toFixed(0),
        p.predicted_tokens_per_s_per_gpu == null ? "none" : p.predicted_tokens_per_s_per_gpu.toFixed(0),
        p.measured_over_predicted == null ? "" : p.measured_over_predicted.toFixed(2)].map(cell));
    mp.append(t);
    const pts = preds.filter((p) => p.predicted_tokens_per_s_per_gpu != null)
      .map((p) => ({ measured: p.measured_tokens_per_s_per_gpu, predicted: p.predicted_tokens_per_s_per_gpu,
        label: `${p.release} ${p.gpus} x ${p.gpu}` }));
    if (pts.length) {
      const top = Math.max(...pts.flatMap((p) => [p.measured, p.predicted])) * 1.1;
      mp.append(Plot.plot({
        width: 320, height: 280, grid: true,
        x: { label: "predicted tokens/s/GPU", domain: [0, top] }, y: { label: "measured tokens/s/GPU", domain: [0, top] },
        marks: [
          Plot.line([[0, 0], [top, top]], { stroke: "#999", strokeDasharray: "4,3" }),
          Plot.dot(pts, { x: "predicted", y: "measured", fill: "crimson", r: 4, title: "label" }),
        ],
      }));
    }
  }

  const text = `${JSON.stringify(r.record, null, 2)}\n`;
  const { status, json } = await post("check", text);
  if (!current()) return;
  if (status === 200) findingsFigure(figs, json.findings || [],
    `Check findings (${json.accepted} accepted by known_issues)`);
  else figure(figs, "findings", "Check").append(Object.assign(document.createElement("pre"), { textContent: errorLines(json).join("\n") }));
  const rec = figure(parent, "record-text", "Record");
  const more = document.createElement("details");
  more.append(Object.assign(document.createElement("summary"), { textContent: "the record as checked (line numbers refer to this text)" }),
    Object.assign(document.createElement("pre"), { textContent: text }));
  rec.append(more);
}
