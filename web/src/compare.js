// The compare view: GPU types side by side for one model, cluster size and token budget: each type's
// best layout, tokens/s/GPU, the days and USD the budget takes (compare_data.js, today one plan per
// GPU type). ?view=compare&model=llama3-70b&gpu=h100,b200&gpus=64&tokens=1T holds the whole state.
import * as Plot from "@observablehq/plot";
import { liveView, figure, layoutText } from "./form.js";
import { compareGpuTypes } from "./compare_data.js";

const fields = [
  ["model", "model", "llama3-70b", "text"],
  ["gpu", "GPU types (comma-separated)", "h100,h200,b200", "text"],
  ["gpus", "GPUs", 64, "number"],
  ["mode", "mode", "pretrain", ["pretrain", "sft", "peft"]],
  ["seq", "seq", 8192, "number"],
  ["gbs", "global batch", 256, "number"],
  ["precision", "precision", "bf16", "text"],
  ["tokens", "token budget", "1T", "text"],
];


const cell = (t) => Object.assign(document.createElement("td"), { textContent: t == null ? "" : String(t) });

export function compareView(app, params) {
  let seq = 0;
  liveView(app, fields, params, {
    endpoint: "plan",
    busy: "planning each GPU type…",
    request: async (body) => {
      const mine = ++seq;
      return { status: 200, json: await compareGpuTypes(body, () => mine === seq) };
    },
    show({ json, out, status, ms }) {
      const ok = json.rows.filter((r) => r.ok);
      status.textContent = `${ok.length} of ${json.rows.length} GPU types fit; ${json.source}; ${ms().toFixed(0)} ms`;
      const figs = document.createElement("div");
      figs.className = "figures";
      out.append(figs);
      const f = figure(figs, "compare-table", "Best layout per GPU type");
      const t = document.createElement("table");
      const head = ["GPU", "GPUs", "layout", "recompute", "tokens/s/GPU", "MFU", "days", "GPU-hours", "USD/GPU-h", "USD", "USD/M tok"];
      t.createTHead().insertRow().append(...head.map((h) => Object.assign(document.createElement("th"), { textContent: h })));
      const tb = t.createTBody();
      for (const r of json.rows) {
        const row = tb.insertRow();
        row.dataset.gpu = r.gpu;
        if (!r.ok) {
          row.append(cell(r.gpu), Object.assign(cell(r.error), { colSpan: head.length - 1, className: "finding error" }));
          continue;
        }
        row.append(...[r.gpu, r.gpus, layoutText(r.layout), r.recompute, r.tokens_per_s_per_gpu.toFixed(0),
          `${(100 * r.mfu).toFixed(1)}%`, r.days == null ? "" : r.days.toFixed(1),
          r.gpu_hours == null ? "" : r.gpu_hours.toFixed(0), r.usd_per_gpu_hour == null ? "no price" : r.usd_per_gpu_hour.toFixed(2),
          r.usd == null ? "" : `${(r.usd / 1e6).toFixed(2)} M`,
          r.usd_per_million_tokens == null ? "" : r.usd_per_million_tokens.toFixed(3)].map(cell));
      }
      f.append(t);
      if (!ok.length) return;
      const bar = (name, title, key, label) => {
        const pts = ok.filter((r) => r[key] != null);
        figure(figs, name, title).append(Plot.plot({
          width: 300, height: 40 * pts.length + 50, marginLeft: 60, x: { label, grid: true, zero: true },
          y: { label: null, domain: pts.map((d) => d.gpu) },  // the order the GPU types were given
          marks: [Plot.barX(pts, { x: key, y: "gpu", fill: "steelblue" }),
            Plot.text(pts, { x: key, y: "gpu", text: (d) => (d[key] >= 100 ? d[key].toFixed(0) : d[key].toPrecision(3)),
              dx: -4, textAnchor: "end", fill: "white" }),
            Plot.ruleX([0])],
        }));
      };
      bar("compare-throughput", "tokens/s/GPU", "tokens_per_s_per_gpu", "tokens/s/GPU");
      bar("compare-days", "Days for the token budget", "days", "days");
      bar("compare-usd", "USD for the token budget (millions)", "usd_m", "M USD");
    },
    prepare: (v) => v,
  });
}
