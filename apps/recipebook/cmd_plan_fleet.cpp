#include "recipebook/cmd_plan_fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/report.hpp"

namespace rb::cli {
namespace {

Error usage(std::string flag, std::string message, std::string fix = {}) {
  return Error{std::move(message), Where{std::move(flag)}, std::move(fix)};
}

// A positive finite number with an optional suffix from `units` (each a letter and its factor).
std::optional<double> number_with_unit(std::string text, std::initializer_list<std::pair<char, double>> units) {
  std::erase_if(text, [](char c) { return c == ',' || c == '$' || c == '_' || c == ' '; });
  if (text.empty()) return std::nullopt;
  double scale = 1;
  const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  for (const auto& [unit, factor] : units)
    if (last == unit) {
      scale = factor;
      text.pop_back();
      break;
    }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

// "gb200=6.5,h100=7": each GPU resolved in the catalog and required to be one of `gpus`.
Result<std::vector<std::pair<size_t, double>>> per_gpu_values(const std::string& text, const std::string& flag,
                                                              const std::vector<FleetGpu>& gpus,
                                                              const Catalog& catalog) {
  std::vector<std::pair<size_t, double>> out;
  for (const std::string& part : split_trimmed(text, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      return tl::unexpected(usage(flag, "'" + part + "' is not GPU=VALUE", "e.g. " + flag + " gb200=6.5"));
    auto hw = catalog.find_hardware(part.substr(0, eq));
    if (!hw) return tl::unexpected(usage(flag, hw.error().message, hw.error().fix));
    const auto it = std::find_if(gpus.begin(), gpus.end(), [&](const FleetGpu& g) { return g.hardware.name == hw->name; });
    if (it == gpus.end()) return tl::unexpected(usage(flag, hw->name + " is not one of the --gpu types"));
    const auto v = number_with_unit(part.substr(eq + 1), {});
    if (!v) return tl::unexpected(usage(flag, "'" + part.substr(eq + 1) + "' is not a positive number"));
    out.emplace_back(static_cast<size_t>(it - gpus.begin()), *v);
  }
  return out;
}

Result<std::vector<FleetGpu>> fleet_gpus(const PlanOptions& o, const Catalog& catalog) {
  std::vector<FleetGpu> out;
  if (to_lower(o.gpu) == "all") {
    for (const HardwareEntry& e : catalog.hardware())
      if (e.hardware.has_specs && e.hardware.memory_bytes > 0 && e.hardware.bf16_flops_per_s > 0)
        out.push_back(FleetGpu{e.hardware, 0});
  } else {
    for (const std::string& name : split_trimmed(o.gpu, ',')) {
      auto hw = catalog.find_hardware(name);
      if (!hw) return tl::unexpected(hw.error());
      if (std::none_of(out.begin(), out.end(), [&](const FleetGpu& g) { return g.hardware.name == hw->name; }))
        out.push_back(FleetGpu{std::move(*hw), 0});
    }
  }
  if (out.empty()) return tl::unexpected(usage("--gpu", "no GPU type given", "e.g. --gpu h100,b200,gb200 or --gpu all"));
  for (FleetGpu& g : out)
    if (auto e = apply_headroom(o.headroom, g.hardware)) return tl::unexpected(*e);
  return out;
}

}  // namespace

bool is_fleet_gpu_list(const std::string& gpu) { return gpu.find(',') != std::string::npos || to_lower(gpu) == "all"; }

bool is_fleet_request(const PlanOptions& o) {
  return is_fleet_gpu_list(o.gpu) || !o.deadline.empty() ||
         !o.budget.empty() || !o.price.empty() || !o.gpus_available.empty();
}

Result<FleetSetup> fleet_setup(const PlanOptions& o, const Catalog& catalog) {
  if (!o.recipe.empty())
    return tl::unexpected(usage("--recipe", "--recipe plans its own GPU type", "give one --gpu, or leave --recipe out"));
  if (o.model.empty())
    return tl::unexpected(usage("--model", "give the model: a catalog name, Hugging Face id or config.json path"));
  FleetSetup s;
  auto model = catalog.find_model(o.model);
  if (!model) return tl::unexpected(model.error());
  s.model = std::move(*model);
  auto gpus = fleet_gpus(o, catalog);
  if (!gpus) return tl::unexpected(gpus.error());
  s.gpus = std::move(*gpus);
  s.price_given.assign(s.gpus.size(), false);

  auto prices = per_gpu_values(o.price, "--price", s.gpus, catalog);
  if (!prices) return tl::unexpected(prices.error());
  for (const auto& [i, usd] : *prices) {
    s.gpus[i].hardware.usd_per_gpu_hour = usd;
    s.gpus[i].hardware.price_source = "--price";
    s.gpus[i].hardware.price_date.clear();
    s.price_given[i] = true;
  }
  auto available = per_gpu_values(o.gpus_available, "--gpus-available", s.gpus, catalog);
  if (!available) return tl::unexpected(available.error());
  for (const auto& [i, n] : *available) {
    if (n != std::floor(n) || n > 1e9)
      return tl::unexpected(usage("--gpus-available", fmt::format("{} is not a whole number of GPUs", n)));
    s.gpus[i].available = static_cast<int>(n);
  }

  // The request from plan's own flags, against the first type (counts are redone per type below).
  auto req = make_plan_request(o, s.gpus.front().hardware);
  if (!req) return tl::unexpected(req.error());
  FleetRequest& f = s.request;
  f.plan = std::move(*req);
  if (!(f.plan.workload.tokens_budget > 0))
    return tl::unexpected(usage("--tokens", "a plan across GPU types needs the token budget", "e.g. --tokens 1T"));
  if (o.gpus.find("..") != std::string::npos) {
    const size_t dots = o.gpus.find("..");
    f.counts.lo = std::atoi(o.gpus.substr(0, dots).c_str());
    f.counts.hi = std::atoi(o.gpus.substr(dots + 2).c_str());
  } else {
    f.counts.list = f.plan.gpu_counts;
  }
  f.plan.gpu_counts.clear();
  f.objective = f.plan.objective;
  if (!o.deadline.empty()) {
    const auto d = number_with_unit(o.deadline, {{'d', 1.0}, {'h', 1.0 / 24.0}, {'w', 7.0}});
    if (!d) return tl::unexpected(usage("--deadline", "'" + o.deadline + "' is not a duration", "e.g. 30d, 12h, 2w"));
    f.deadline_days = *d;
  }
  if (!o.budget.empty()) {
    const auto b = number_with_unit(o.budget, {{'k', 1e3}, {'m', 1e6}, {'b', 1e9}});
    if (!b) return tl::unexpected(usage("--budget", "'" + o.budget + "' is not an amount of USD", "e.g. 2e6, 2M, 500k"));
    f.budget_usd = *b;
  }
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  f.plan.threads = o.threads_given && o.threads > 0 ? o.threads : cores;
  return s;
}

Result<FleetResult> run_fleet_search(const FleetSetup& s, const Context& ctx, bool progress) {
  const PreparedModel pm = prepare(s.model);  // once for every type
  Result<FleetResult> r;
  with_progress_line(ctx, progress,
                     [&](const ProgressFn& line) { r = plan_fleet(pm, s.gpus, s.request, line); });
  return r;
}

int run_plan_fleet(const PlanOptions& o, const Context& ctx, const Catalog& catalog) {
  auto s = fleet_setup(o, catalog);
  if (!s) return report(ctx, s.error());
  auto r = run_fleet_search(*s, ctx, o.progress);
  if (!r) return report(ctx, r.error());
  if (ctx.json)
    ctx.out << fleet_json(*s, *r).dump(2) << "\n";
  else
    ctx.out << fleet_text(*s, *r);
  return r->best >= 0 ? kExitOk : kExitFindings;
}

}  // namespace rb::cli
