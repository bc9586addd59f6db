// The estimate view (what-if): every layout field editable, re-computed as you type; each pipeline
// stage's memory as a stacked bar of its parts against the GPU's capacity and the required headroom,
// the step time's parts, and the rules' findings with their fixes.
// Body and response: POST /api/estimate = `estimate --json` (memory.stages: one entry per stage).
import * as Plot from "@observablehq/plot";
import { liveView, figure, gib } from "./form.js";

export const estimateFields = [
  ["model", "model", "llama3-8b", "text"],
  ["gpu", "GPU", "h100", "text"],
  ["gpus", "GPUs", 8, "number"],
  ["gpus_per_node", "GPUs/node", "", "number"],
  ["mode", "mode", "pretrain", ["pretrain", "sft", "peft"]],
  ["seq", "seq", 4096, "number"],
  ["gbs", "global batch", 128, "number"],
  ["tp", "TP", 1, "number"],
  ["pp", "PP", 1, "number"],
  ["vp", "VP", 1, "number"],
  ["cp", "CP", 1, "number"],
  ["cp_comm_type", "CP exchange", "p2p", ["p2p", "a2a", "allgather"]],
  ["ep", "EP", 1, "number"],
  ["etp", "ETP", "", "number"],
  ["mbs", "micro batch", 1, "number"],
  ["precision", "precision", "bf16", ["bf16", "fp8_cs", "fp8_ds", "fp8_blockwise", "mxfp8", "nvfp4"]],
  ["recompute", "recompute", "none", ["none", "selective", "full"]],
  ["sp", "SP", "default", "bool"],
  ["fsdp", "FSDP", "default", "bool"],
  ["distributed_optimizer", "dist. optimizer", "default", "bool"],
  ["headroom", "headroom", "", "text"],
];

export function estimateView(app, params) {
  liveView(app, estimateFields, params, {
    endpoint: "estimate",
    busy: "estimating…",
    show({ json, out, status }) {
      status.textContent = `${json.model} on ${json.gpus} x ${json.gpu}, layout TP ${json.layout.tp} PP ${json.layout.pp} ` +
        `CP ${json.layout.cp} EP ${json.layout.ep} DP ${json.layout.dp ?? "none"}`;
      render(out, json);
    },
  });
}

// The rules' errors and warnings, each with its fix (the same lines as the CLI's).
export function findingsFigure(parent, list, title = "Rule findings") {
  const f = figure(parent, "findings", `${title} (${list.length})`);
  const ul = document.createElement("ul");
  for (const x of list) {
    const li = document.createElement("li");
    li.className = `finding ${x.severity}`;
    li.dataset.rule = x.rule;
    li.textContent = `${x.severity} [${x.rule}] ${x.where ? `${x.where}: ` : ""}${x.message}`;
    if (x.fix) li.append(Object.assign(document.createElement("div"), { className: "fix", textContent: `fix: ${x.fix}` }));
    ul.append(li);
  }
  if (!list.length) ul.append(Object.assign(document.createElement("li"), { textContent: "none" }));
  f.append(ul);
  return f;
}

function render(out, j) {
  const findings = [...j.errors, ...j.warnings];
  if (!j.memory) {
    findingsFigure(out, findings);
    return;
  }
  const figs = document.createElement("div");
  figs.className = "figures";
  out.append(figs);

  const summary = figure(figs, "summary", "Prediction");
  const t = document.createElement("table");
  t.className = "summary";
  const rows = [
    ["tokens/s/GPU", j.tokens_per_s_per_gpu.toFixed(0)],
    ["step time", `${j.step_time_s.toFixed(3)} s`],
    [`MFU (${j.mfu_peak})`, `${(100 * j.mfu).toFixed(1)}%`],
    ["USD / M tokens", j.usd_per_million_tokens == null ? "no price" : j.usd_per_million_tokens.toFixed(3)],
    ["peak memory", `${gib(j.memory.peak_bytes).toFixed(1)} GiB of ${gib(j.memory.capacity_bytes).toFixed(1)}`],
    ["fits", j.memory.fits ? "yes" : "NO"],
  ];
  for (const [k, v] of rows) t.insertRow().append(...[k, v].map((x) => Object.assign(document.createElement("td"), { textContent: x })));
  summary.append(t);

  memoryFigure(figs, j.memory);

  const time = Object.entries(j.time.parts)
    .filter(([, s]) => s > 0)
    .map(([k, s]) => ({ part: k.replace(/_s$/, ""), s }));
  figure(figs, "time", "Step time by part (s)").append(
    Plot.plot({
      width: 480, height: 24 * time.length + 40, marginLeft: 110, x: { label: "seconds", grid: true },
      marks: [Plot.barX(time, { x: "s", y: "part", fill: "steelblue", sort: { y: "-x" } }), Plot.ruleX([0])],
    }));
  findingsFigure(figs, findings);
}

// One stacked bar per pipeline stage (memory.stages; the worst stage alone from a server that does
// not list them), the capacity as a red rule and capacity less the required headroom dashed.
function memoryFigure(figs, m) {
  const stages = m.stages && m.stages.length ? m.stages : [{ stage: m.stage, parts: m.parts, peak_bytes: m.peak_bytes }];
  const label = (s) => `stage ${s.stage}${s.stage === m.stage ? " (worst)" : ""}`;
  const parts = stages.flatMap((s) => Object.entries(s.parts)
    .filter(([, b]) => b > 0)
    .map(([k, b]) => ({ stage: label(s), part: k.replace(/_bytes$/, ""), gib: gib(b) })));
  const cap = gib(m.capacity_bytes);
  const usable = cap - gib(m.required_headroom_bytes);
  const peak = Math.max(...stages.map((s) => gib(s.peak_bytes)));
  const f = figure(figs, "memory", `Memory per pipeline stage (${stages.length}) vs capacity ${cap.toFixed(0)} GiB (red) ` +
    `and capacity less headroom (dashed)`);
  f.dataset.stages = String(stages.length);
  f.append(Plot.plot({
    width: 680, height: 22 * stages.length + 70, marginLeft: 100,
    x: { label: "GiB", domain: [0, Math.max(cap, peak) * 1.05], grid: true },
    y: { label: null, domain: stages.map(label) },
    color: { legend: true },
    marks: [
      Plot.barX(parts, Plot.stackX({ x: "gib", y: "stage", fill: "part", title: (d) => `${d.stage} ${d.part}: ${d.gib.toFixed(2)} GiB` })),
      Plot.ruleX([cap], { stroke: "red", strokeWidth: 2 }),
      Plot.ruleX([usable], { stroke: "black", strokeDasharray: "4,3" }),
    ],
  }));
}
