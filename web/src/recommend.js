// The recommend view: the closest catalog recipe resized to the cluster, the changes with their
// reasons, the prediction, pitfalls and the command that runs it (with a copy button).
// POST /api/recommend = `recommend --json`.
import { liveView, figure, gib } from "./form.js";

const fields = [
  ["model", "model", "llama3-70b", "text"],
  ["gpu", "GPU", "h100", "text"],
  ["gpus", "GPUs", 64, "number"],
  ["mode", "mode", "pretrain", ["pretrain", "sft", "peft"]],
  ["seq", "seq (empty: the recipe's)", "", "number"],
  ["gbs", "global batch (empty: the recipe's)", "", "number"],
  ["precision", "precision (empty: the recipe's)", "", "text"],
];

function list(parent, items) {
  const ul = document.createElement("ul");
  for (const text of items) ul.append(Object.assign(document.createElement("li"), { textContent: text }));
  parent.append(ul);
}

export function recommendView(app, params) {
  liveView(app, fields, params, {
    endpoint: "recommend",
    busy: "recommending…",
    accept: (json) => Boolean(json.recipe),
    show: ({ json, out, status }) => render(out, status, json),
  });
}

function render(out, status, json) {
  status.textContent = `${json.recipe.name} (${json.recipe.kind}, ${json.recipe.gpus} x ${json.recipe.gpu})`;
  const figs = document.createElement("div");
  figs.className = "figures";
  out.append(figs);

  const recipe = figure(figs, "recipe", "Recipe");
  list(recipe, [`${json.recipe.name}`, `alternatives: ${(json.alternatives || []).join(", ") || "none"}`,
    json.sized ? "sized to your cluster" : `not sized: ${json.unsized_reason}`]);
  const changes = figure(figs, "changes", "Changes");
  list(changes, json.changes.length ? json.changes.map((c) => c.text) : ["none: the recipe runs as it is"]);
  const p = json.prediction || {};
  const pred = figure(figs, "prediction", "Prediction");
  list(pred, p.valid ? [`${p.tokens_per_s_per_gpu.toFixed(0)} tokens/s/GPU, MFU ${(100 * p.mfu).toFixed(1)}%`,
    `peak ${gib(p.peak_bytes).toFixed(1)} of ${gib(p.capacity_bytes).toFixed(1)} GiB (${p.fits ? "fits" : "does NOT fit"})`,
    p.usd_per_million_tokens == null ? "no price" : `${p.usd_per_million_tokens.toFixed(3)} USD / M tokens`]
    : [`no prediction: ${p.invalid_reason}`]);
  const pit = figure(figs, "pitfalls", "Pitfalls");
  list(pit, json.pitfalls.length ? json.pitfalls.map((x) => x.text || x.message || JSON.stringify(x)) : ["none known"]);

  if (json.command && json.command.text) {
    const cmd = figure(out, "command", `Command (${json.command.framework})`);
    const pre = Object.assign(document.createElement("pre"), { textContent: json.command.text });
    const copy = Object.assign(document.createElement("button"), { type: "button", textContent: "copy" });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(json.command.text);
        copy.textContent = "copied";
      } catch {
        copy.textContent = "select the text to copy";
      }
    });
    cmd.append(copy, pre);
  }
}
