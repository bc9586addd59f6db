// The estimate view (what-if): every layout field editable, re-computed as you type; the worst
// rank's memory as a stacked bar against the GPU's capacity and the required headroom, the step
// time's parts, and the rules' findings. Body and response: POST /api/estimate = `estimate --json`.
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

function render(out, j) {
  const findings = document.createElement("ul");
  for (const f of [...j.errors, ...j.warnings]) {
    const li = document.createElement("li");
    li.className = `finding ${f.severity}`;
    li.textContent = `${f.severity} [${f.rule}] ${f.message}${f.fix ? ` (fix: ${f.fix})` : ""}`;
    findings.append(li);
  }
  if (!j.memory) {
    out.append(findings);
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

  const parts = Object.entries(j.memory.parts)
    .filter(([, b]) => b > 0)
    .map(([k, b]) => ({ stage: `stage ${j.memory.stage}`, part: k.replace(/_bytes$/, ""), gib: gib(b) }));
  const cap = gib(j.memory.capacity_bytes);
  const usable = cap - gib(j.memory.required_headroom_bytes);
  figure(figs, "memory", "Memory of the worst rank vs capacity (red) and capacity less headroom (dashed)").append(
    Plot.plot({
      width: 640, height: 130, marginLeft: 70, x: { label: "GiB", domain: [0, Math.max(cap, gib(j.memory.peak_bytes)) * 1.05] },
      color: { legend: true },
      marks: [
        Plot.barX(parts, Plot.stackX({ x: "gib", y: "stage", fill: "part", title: (d) => `${d.part}: ${d.gib.toFixed(2)} GiB` })),
        Plot.ruleX([cap], { stroke: "red", strokeWidth: 2 }),
        Plot.ruleX([usable], { stroke: "black", strokeDasharray: "4,3" }),
      ],
    }));

  const time = Object.entries(j.time.parts)
    .filter(([, s]) => s > 0)
    .map(([k, s]) => ({ part: k.replace(/_s$/, ""), s }));
  figure(figs, "time", "Step time by part (s)").append(
    Plot.plot({
      width: 480, height: 24 * time.length + 40, marginLeft: 110, x: { label: "seconds", grid: true },
      marks: [Plot.barX(time, { x: "s", y: "part", fill: "steelblue", sort: { y: "-x" } }), Plot.ruleX([0])],
    }));
  out.append(findings);
}
