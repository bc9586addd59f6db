// The plan view: inputs, the ranked table, the Pareto front (tokens/s/GPU vs headroom, or vs cost
// when the objective is cost), the best layout per GPU count over a few counts around the chosen
// one, and a TP x PP heatmap of the best tokens/s/GPU among the ranked layouts.
// POST /api/plan = `plan --json`.
import * as Plot from "@observablehq/plot";
import { post } from "./api.js";
import { liveView, figure, gib, layoutText } from "./form.js";

const fields = [
  ["model", "model", "llama3-8b", "text"],
  ["gpu", "GPU", "h100", "text"],
  ["gpus", "GPUs", "8", "text"],
  ["mode", "mode", "pretrain", ["pretrain", "sft", "peft"]],
  ["seq", "seq", 4096, "number"],
  ["gbs", "global batch", 128, "number"],
  ["precision", "precision", "bf16", "text"],
  ["objective", "objective", "throughput", ["throughput", "cost"]],
  ["top", "rows", 20, "number"],
  ["tp", "TP (0 = any)", 0, "number"],
  ["pp", "PP (0 = any)", 0, "number"],
];

export function planView(app, params) {
  liveView(app, fields, params, {
    endpoint: "plan",
    busy: "planning…",
    prepare(v) {
      for (const k of ["tp", "pp"]) if (!v[k]) delete v[k];
      return v;
    },
    async show({ json, out, status, body, current, ms }) {
      status.textContent = `${json.counts.seen} layouts seen, ${json.counts.rejected_by_rules} rejected by rules, ` +
        `${json.counts.removed_by_memory} by memory; ${json.feasible ? "" : "nothing fits; "}${ms().toFixed(0)} ms`;
      render(out, json);
      if (!json.top.length) return;
      // One after another: the server plans at most one request per core at once (503 past that).
      await scaling(out, body, current);
      if (current()) await heatmap(out.querySelector(".figures"), body, current);
    },
  });
}

async function scaling(out, v, current) {
  const g = Number(v.gpus);
  if (!Number.isInteger(g) || g < 1) return;
  const counts = [g / 4, g / 2, g, 2 * g].filter((n) => Number.isInteger(n) && n >= 1);
  const { status: code, json } = await post("plan", { ...v, gpus: counts.join(","), top: 1 });
  if (!current() || code !== 200) return;
  const pts = json.best_per_gpu_count.map((e) => ({ gpus: e.gpus, tps: e.tokens_per_s_per_gpu }));
  figure(out.querySelector(".figures"), "scaling", "Best tokens/s/GPU per GPU count").append(
    Plot.plot({
      width: 420, height: 260, x: { type: "log", label: "GPUs" }, y: { label: "tokens/s/GPU", zero: true, grid: true },
      marks: [Plot.line(pts, { x: "gpus", y: "tps" }), Plot.dot(pts, { x: "gpus", y: "tps", fill: "currentColor" })],
    }));
}


function render(out, j) {
  const figs = document.createElement("div");
  figs.className = "figures";
  out.append(figs);
  const table = figure(figs, "ranked", "Ranked layouts");
  const t = document.createElement("table");
  const head = ["#", "GPUs", "layout", "recompute", "precision", "tokens/s/GPU", "MFU", "USD/M tok", "peak GiB", "headroom GiB"];
  t.createTHead().insertRow().append(...head.map((h) => Object.assign(document.createElement("th"), { textContent: h })));
  const body = t.createTBody();
  j.top.forEach((e, i) => {
    const cells = [i + 1, e.gpus, layoutText(e.layout), e.recompute, e.layout.precision, e.tokens_per_s_per_gpu.toFixed(0),
      `${(100 * e.mfu).toFixed(1)}%`, e.usd_per_million_tokens == null ? "-" : e.usd_per_million_tokens.toFixed(3),
      gib(e.memory.peak_bytes).toFixed(1), gib(e.memory.headroom_bytes).toFixed(1)];
    body.insertRow().append(...cells.map((c) => Object.assign(document.createElement("td"), { textContent: String(c) })));
  });
  table.append(t);
  if (!j.top.length) return;

  const [xAxis] = j.pareto.axes.filter((a) => a !== "tokens_per_s_per_gpu");
  const xOf = (e) => (xAxis === "headroom_bytes" ? gib(e.memory.headroom_bytes) : e[xAxis] ?? e.usd_per_million_tokens);
  const all = j.top.map((e) => ({ x: xOf(e), y: e.tokens_per_s_per_gpu, label: layoutText(e.layout) }));
  const front = j.pareto.layouts.map((e) => ({ x: xOf(e), y: e.tokens_per_s_per_gpu, label: layoutText(e.layout) }))
    .sort((a, b) => a.x - b.x);
  figure(figs, "pareto", `Pareto front: tokens/s/GPU vs ${xAxis === "headroom_bytes" ? "headroom (GiB)" : xAxis}`).append(
    Plot.plot({
      width: 420, height: 260, grid: true,
      x: { label: xAxis === "headroom_bytes" ? "headroom GiB" : xAxis }, y: { label: "tokens/s/GPU" },
      marks: [
        Plot.dot(all, { x: "x", y: "y", stroke: "#999", title: "label" }),
        Plot.line(front, { x: "x", y: "y", stroke: "crimson" }),
        Plot.dot(front, { x: "x", y: "y", fill: "crimson", title: "label" }),
      ],
    }));

}

// The TP x PP heatmap: one small plan per cell with TP and PP fixed (the other degrees searched),
// run one after another so the page never holds more than one plan slot of the server's.
async function heatmap(figs, v, current) {
  const g = Number(v.gpus);
  if (!Number.isInteger(g) || g < 1) return;
  const cells = [];
  for (const tp of [1, 2, 4, 8])
    for (const pp of [1, 2, 4, 8, 16])
      if (tp * pp <= g && g % (tp * pp) === 0) cells.push({ tp, pp });
  for (const c of cells) {
    const { status, json } = await post("plan", { ...v, tp: c.tp, pp: c.pp, top: 1 });
    if (!current()) return;
    c.tps = status === 200 && json.top.length ? json.top[0].tokens_per_s_per_gpu : null;
  }
  const f = figure(figs, "heatmap", "Best tokens/s/GPU by TP x PP (empty: nothing fits)");
  f.append(
    Plot.plot({
      width: 360, height: 260, x: { type: "band", label: "PP" }, y: { type: "band", label: "TP" },
      color: { scheme: "viridis", legend: true, label: "tokens/s/GPU" },
      marks: [
        Plot.cell(cells.filter((d) => d.tps != null), { x: "pp", y: "tp", fill: "tps", inset: 1 }),
        Plot.text(cells, { x: "pp", y: "tp", text: (d) => (d.tps == null ? "none" : d.tps.toFixed(0)),
          fill: (d) => (d.tps == null ? "#999" : "white") }),
      ],
    }));
}
