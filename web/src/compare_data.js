// The compare view's data: for one model, cluster size and token budget, each GPU type's best layout
// with its tokens/s/GPU, days and USD for the budget. Today one POST /api/plan per GPU type (one
// after another: the server plans at most one request per core at once), priced with the GPU's
// usd_per_gpu_hour from GET /api/hardware. Where the server has the multi-GPU-type plan (`plan --gpu
// h100,b200`, engineer fleet's), it is one request to it instead (fromFleet; its JSON as
// cmd_plan_fleet_output.cpp writes it: entries[] and gpu_types[]); the view reads only these rows.
import { get, post, errorLines } from "./api.js";

// body: the plan keys (model, gpus, seq, gbs, mode, precision, tokens) and gpu: "h100,b200,...".
// Returns { rows: [{ gpu, ok, error, gpus, layout, tokens_per_s_per_gpu, mfu, days, gpu_hours,
//   usd_per_gpu_hour, usd, usd_m, usd_per_million_tokens }], source }.
export async function compareGpuTypes(body, current = () => true) {
  const types = String(body.gpu || "").split(",").map((s) => s.trim()).filter(Boolean);
  // A server with the fleet plan answers the whole list at once (`entries`, one per GPU type and
  // count); one without it refuses the list (4xx), and each type is planned on its own.
  if (types.length > 1) {
    const fleet = await post("plan", body);
    if (fleet.status === 200 && Array.isArray(fleet.json.entries)) return fromFleet(fleet.json);
  }
  const hw = await get("hardware");
  const price = new Map((hw.status === 200 ? hw.json : []).map((h) => [h.name, h.usd_per_gpu_hour]));
  const rows = [];
  for (const gpu of types) {
    if (!current()) break;
    const { status, json } = await post("plan", { ...body, gpu, top: 1 });
    const best = status === 200 && json.top && json.top.length ? json.top[0] : null;
    if (!best) {
      rows.push({ gpu, ok: false, error: status === 200 ? "no layout fits" : errorLines(json).join("; ") });
      continue;
    }
    const usdHour = price.get(json.gpu) || 0;
    rows.push({
      gpu: json.gpu, ok: true, gpus: best.gpus, layout: best.layout, recompute: best.recompute,
      tokens_per_s_per_gpu: best.tokens_per_s_per_gpu, mfu: best.mfu, days: best.days ?? null,
      gpu_hours: best.gpu_hours ?? null, usd_per_gpu_hour: usdHour || null,
      usd: best.gpu_hours != null && usdHour > 0 ? best.gpu_hours * usdHour : null,
      usd_m: best.gpu_hours != null && usdHour > 0 ? (best.gpu_hours * usdHour) / 1e6 : null,
      usd_per_million_tokens: best.usd_per_million_tokens,
    });
  }
  return { rows, source: `one plan per GPU type (${types.length})` };
}

// The fleet plan's answer as the same rows: each GPU type's best entry by tokens/s/GPU.
function fromFleet(j) {
  const price = new Map((j.gpu_types || []).map((t) => [t.gpu, t.usd_per_gpu_hour]));
  const best = new Map();
  for (const e of j.entries) {
    const had = best.get(e.gpu);
    if (!had || (e.feasible && (!had.feasible || e.tokens_per_s_per_gpu > had.tokens_per_s_per_gpu))) best.set(e.gpu, e);
  }
  const rows = [...best.values()].map((e) => (!e.feasible || !e.layout
    ? { gpu: e.gpu, ok: false, error: (e.reasons || []).join("; ") || "no layout fits" }
    : {
      gpu: e.gpu, ok: true, gpus: e.gpus, layout: e.layout, recompute: e.recompute,
      tokens_per_s_per_gpu: e.tokens_per_s_per_gpu, mfu: e.mfu, days: e.days ?? null, gpu_hours: e.gpu_hours ?? null,
      usd_per_gpu_hour: price.get(e.gpu) ?? null, usd: e.usd ?? null, usd_m: e.usd != null ? e.usd / 1e6 : null,
      usd_per_million_tokens: price.get(e.gpu) && e.tokens_per_s_per_gpu > 0
        ? (price.get(e.gpu) / (e.tokens_per_s_per_gpu * 3600)) * 1e6 : null,
    }));
  return { rows, source: "one fleet plan" };
}
