#include "recipebook/serve/request_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "recipebook/core/strings.hpp"
#include "recipebook/search/space.hpp"

namespace rb::serve {
namespace {

using Json = nlohmann::json;
using Target = std::variant<int*, int64_t*, std::string*, bool*, std::vector<std::string>*>;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

struct Field {
  std::string_view key;
  Target target;
  int64_t min = std::numeric_limits<int64_t>::min();  // an integer's least value, as the flag's check
  int64_t max = std::numeric_limits<int64_t>::max();
};
// The bounds of the flags that take a count or a port (main.cpp: kPositive, CLI::Range(1, 65535)).
constexpr int64_t kAtLeastOne = 1;

Error type_error(const std::string& key, const char* want, const Json& v) {
  return Error("\"" + key + "\" must be " + want + ", found " + std::string(v.type_name()));
}

template <typename T>
std::optional<Error> read_int(const std::string& key, const Json& v, T& out, int64_t min, int64_t max) {
  if (!v.is_number_integer()) return type_error(key, "an integer", v);
  const auto wide = v.get<int64_t>();
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Error("\"" + key + "\" is out of range");
  if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max())
    return Error("\"" + key + "\" is out of range: " + std::to_string(wide));
  if (wide < min || wide > max)
    return Error(max == std::numeric_limits<int64_t>::max()
                     ? fmt::format("\"{}\" must be at least {}, not {}", key, min, wide)
                     : fmt::format("\"{}\" must be between {} and {}, not {}", key, min, max, wide));
  out = static_cast<T>(wide);
  return std::nullopt;
}

std::optional<Error> read_field(const std::string& key, const Json& v, const Field& f) {
  const Target& t = f.target;
  if (auto* p = std::get_if<int*>(&t)) return read_int(key, v, **p, f.min, f.max);
  if (auto* p = std::get_if<int64_t*>(&t)) return read_int(key, v, **p, f.min, f.max);
  if (auto* p = std::get_if<bool*>(&t)) {
    if (!v.is_boolean()) return type_error(key, "true or false", v);
    **p = v.get<bool>();
    return std::nullopt;
  }
  if (auto* p = std::get_if<std::string*>(&t)) {
    // A number is taken for a string field whose flag also takes numbers ("gpus": 64, "tokens": 1e12).
    if (v.is_number_integer()) **p = std::to_string(v.get<int64_t>());
    else if (v.is_number()) **p = fmt::format("{}", v.get<double>());
    else if (v.is_string()) **p = v.get<std::string>();
    else return type_error(key, "a string", v);
    return std::nullopt;
  }
  auto& list = **std::get_if<std::vector<std::string>*>(&t);
  list.clear();
  if (v.is_string()) {
    list.push_back(v.get<std::string>());
    return std::nullopt;
  }
  if (!v.is_array()) return type_error(key, "a string or an array of strings", v);
  for (const auto& e : v) {
    if (!e.is_string()) return type_error(key, "an array of strings", e);
    list.push_back(e.get<std::string>());
  }
  return std::nullopt;
}

// Reads every key of `body` into `fields` (or, with `layout`, the layout flags) and appends each
// key's error to `errors`: unknown keys get the nearest known one as their fix, and each error's
// `where` is the key it is about (at_key).
void read_fields(const Json& body, const std::vector<Field>& fields, std::vector<Error>& errors,
                 LayoutFlags* layout = nullptr) {
  if (!body.is_object()) {
    errors.emplace_back("the request body must be a JSON object with the same keys as the flags");
    return;
  }
  for (const auto& [key, v] : body.items()) {
    if (layout) {
      auto flag = read_layout_flag(key, v, *layout);
      if (!flag) {
        errors.push_back(at_key(flag.error(), key));
        continue;
      }
      if (*flag) continue;
    }
    const Field* f = nullptr;
    for (const auto& c : fields)
      if (key == c.key) f = &c;
    if (!f) {
      std::vector<std::string> known;
      for (const auto& c : fields) known.emplace_back(c.key);
      if (layout) known.insert(known.end(), layout_flag_keys().begin(), layout_flag_keys().end());
      errors.push_back(unknown_key(key, known));
      continue;
    }
    if (auto e = read_field(key, v, *f)) errors.push_back(at_key(*e, key));
  }
}

tl::unexpected<std::vector<Error>> refuse(Error e) { return tl::unexpected(std::vector<Error>{std::move(e)}); }

Error limit(const std::string& what, const std::string& fix) { return Error(what, {}, fix, kRuleLimit); }

// The server reads no local files on a client's behalf: a model is a catalog name or a Hugging Face
// id, never a config.json path.
std::optional<Error> no_path(const std::string& key, const std::string& value) {
  const bool looks_like_path = value.starts_with('/') || value.starts_with('.') || value.starts_with('~') ||
                               value.ends_with(".json") || value.ends_with(".yaml") || value.ends_with(".yml") ||
                               value.find('\\') != std::string::npos || value.find("..") != std::string::npos;
  if (!looks_like_path) return std::nullopt;
  return Error("\"" + key + "\": the server reads no files; '" + value + "' looks like a path", {},
               "give a catalog name or a Hugging Face id, or run the CLI on the file");
}

// Every limit the request is past, at once.
std::vector<Error> check_plan_limits(const cli::PlanOptions& o, const PlanLimits& lim) {
  std::vector<Error> out;
  std::vector<int> counts;
  const size_t dots = o.gpus.find("..");
  auto to_int = [](const std::string& s) -> std::optional<int> {
    try {
      size_t used = 0;
      const long v = std::stol(s, &used);
      if (used != s.size() || v < 1 || v > std::numeric_limits<int>::max()) return std::nullopt;
      return static_cast<int>(v);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  if (dots != std::string::npos) {
    const auto lo = to_int(o.gpus.substr(0, dots));
    const auto hi = to_int(o.gpus.substr(dots + 2));
    if (lo && hi && *hi > lim.max_gpus)
      out.push_back(limit(fmt::format("\"gpus\": {} is past the server's limit of {} GPUs", *hi, lim.max_gpus),
                   "plan larger clusters with the CLI"));
    if (lo && hi && *lo <= *hi) counts = gpu_counts_in_range(*lo, *hi, o.gpus_per_node > 0 ? o.gpus_per_node : 8);
  } else {
    for (const auto& part : split(o.gpus, ',')) {
      if (auto n = to_int(part)) {
        if (*n > lim.max_gpus) {
          out.push_back(limit(fmt::format("\"gpus\": {} is past the server's limit of {} GPUs", *n, lim.max_gpus),
                              "plan larger clusters with the CLI"));
          break;
        }
        counts.push_back(*n);
      }
    }
  }
  if (static_cast<int>(counts.size()) > lim.max_gpu_counts)
    out.push_back(limit(fmt::format("\"gpus\": {} GPU counts in one request; the server searches at most {}", counts.size(),
                                    lim.max_gpu_counts),
                        "narrow the range, or run 'recipebook plan' for the whole sweep"));
  const auto mbs = read_plan_values(layout_field("mbs"), o.searched("mbs"));
  const bool mbs_over = mbs && std::any_of(mbs->begin(), mbs->end(), [&](SearchValue v) { return v > lim.max_mbs; });
  if (o.max_mbs > lim.max_mbs || mbs_over)
    out.push_back(limit(fmt::format("\"max_mbs\": at most {} in one request", lim.max_mbs), "lower max_mbs"));
  if (static_cast<int>(split(o.searched("precision"), ',').size()) > lim.max_precisions)
    out.push_back(limit(fmt::format("\"precision\": at most {} precisions in one request", lim.max_precisions),
                        "plan fewer precisions at a time"));
  if (o.top > lim.max_top)
    out.push_back(limit(fmt::format("\"top\": {} is past the server's limit of {} rows", o.top, lim.max_top), "ask for fewer rows"));
  return out;
}

}  // namespace

BodyRead<cli::EstimateOptions> estimate_options_from_json(const nlohmann::json& body) {
  auto args = cli::layout_args_from_json(body);
  if (!args) return tl::unexpected(args.error());
  if (auto e = no_path("model", args->model)) return refuse(*e);
  cli::EstimateOptions o;
  o.args = *args;
  return o;
}

BodyRead<cli::PlanOptions> plan_options_from_json(const nlohmann::json& given, const PlanLimits& limits, int threads) {
  cli::PlanOptions o;
  // "gpu": ["h100", "b200"] is the plan across GPU types, as "gpu": "h100,b200" is.
  nlohmann::json body = given;
  if (body.is_object() && body.contains("gpu") && body["gpu"].is_array()) {
    std::string list;
    for (const auto& g : body["gpu"]) {
      if (!g.is_string()) return refuse(at_key(type_error("gpu", "a string or an array of strings", g), "gpu"));
      list += (list.empty() ? "" : ",") + g.get<std::string>();
    }
    body["gpu"] = list;
  }
  std::vector<Field> fields{
      {"model", &o.model},         {"gpu", &o.gpu},           {"gpus", &o.gpus},       {"gpus_per_node", &o.gpus_per_node, kAtLeastOne},
      {"mode", &o.mode},           {"seq", &o.seq, kAtLeastOne}, {"gbs", &o.gbs, kAtLeastOne}, {"lora_rank", &o.lora_rank, kAtLeastOne},
      {"dp", &o.dp, kAtLeastOne},  {"max_mbs", &o.max_mbs, kAtLeastOne},   {"objective", &o.objective}, {"tokens", &o.tokens},
      {"top", &o.top, kAtLeastOne}, {"headroom", &o.headroom},
      // Across GPU types ("gpu": "h100,b200,gb200"): cmd_plan_fleet.hpp.
      {"deadline", &o.deadline},   {"budget", &o.budget},     {"price", &o.price},     {"gpus_available", &o.gpus_available}};
  // The searched layout fields, as plan's flags take them ("tp": 2, "tp": "2,4", "fsdp": "off").
  for (const LayoutField& r : layout_fields())
    if (plan_searches(r)) fields.push_back({r.key, &o.search[std::string(r.key)]});
  // The layout fields plan fixes (core/layout_fields.hpp PlanRole::kFixed), as its flags do.
  Json rest = body;
  std::vector<Error> errors;
  if (body.is_object())
    for (const LayoutField& r : layout_fields()) {
      const std::string key(r.key);
      if (r.plan != PlanRole::kFixed || !body.contains(key)) continue;
      if (auto read = read_layout_flag(key, body[key], o.layout); !read) errors.push_back(at_key(read.error(), key));
      rest.erase(key);
    }
  read_fields(rest, fields, errors);
  if (auto e = no_path("model", o.model)) errors.push_back(*e);
  for (Error& e : check_plan_limits(o, limits)) errors.push_back(std::move(e));
  if (!errors.empty()) return tl::unexpected(std::move(errors));
  o.threads = threads;
  return o;
}

BodyRead<cli::RecommendOptions> recommend_options_from_json(const nlohmann::json& body, int threads) {
  cli::RecommendOptions o;
  const std::vector<Field> fields{{"model", &o.model},     {"gpu", &o.gpu},         {"gpus", &o.gpus, kAtLeastOne},
                                  {"gpus_per_node", &o.gpus_per_node, kAtLeastOne}, {"mode", &o.mode}, {"seq", &o.seq, kAtLeastOne},
                                  {"gbs", &o.gbs, kAtLeastOne},         {"precision", &o.precision}, {"dataset", &o.dataset},
                                  {"alternatives", &o.alternatives}, {"compare", &o.compare},
                                  {"headroom", &o.headroom}, {"tokens", &o.tokens}};
  std::vector<Error> errors;
  read_fields(body, fields, errors);
  if (auto e = no_path("model", o.model)) errors.push_back(*e);
  if (!errors.empty()) return tl::unexpected(std::move(errors));
  if (o.alternatives < 0 || o.alternatives > 20) return refuse(limit("\"alternatives\": at most 20", "ask for fewer alternatives"));
  o.threads = threads;
  return o;
}

BodyRead<cli::LaunchOptions> launch_options_from_json(const nlohmann::json& body) {
  cli::LaunchOptions o;
  const std::vector<Field> fields{
      {"source", &o.source},         {"model", &o.model},       {"gpu", &o.gpu},
      {"mode", &o.mode},             {"gpus", &o.gpus, kAtLeastOne}, {"gpus_per_node", &o.gpus_per_node, kAtLeastOne},
      {"seq", &o.seq, kAtLeastOne},  {"gbs", &o.gbs, kAtLeastOne},           {"target", &o.targets},
      {"framework", &o.framework},   {"bridge_recipe", &o.bridge_recipe}, {"name", &o.name},
      {"dataset", &o.dataset},       {"train_iters", &o.train_iters, kAtLeastOne}, {"env", &o.env},
      {"extra", &o.extra},           {"workdir", &o.workdir},   {"probe", &o.probe},
      {"master_port", &o.master_port, kAtLeastOne, 65535}, {"partition", &o.slurm.partition}, {"account", &o.slurm.account},
      {"time", &o.slurm.time_limit}, {"slurm_output", &o.slurm.output},
      {"container_image", &o.slurm.container_image}, {"container_mounts", &o.slurm.container_mounts},
      {"gres", &o.slurm.gres},       {"operator", &o.k8s_operator}, {"image", &o.image},
      {"namespace", &o.k8s_namespace}, {"ignore_memory", &o.ignore_memory}};
  std::vector<Error> errors;
  read_fields(body, fields, errors, &o.layout);
  // A plan file or a recipe file would be read from the server's disk: only catalog names are taken.
  if (auto e = no_path("source", o.source)) errors.push_back(*e);
  else if (o.source.find('/') != std::string::npos)
    errors.emplace_back("\"source\": give a catalog recipe name; the server reads no files");
  if (auto e = no_path("model", o.model)) errors.push_back(*e);
  if (!errors.empty()) return tl::unexpected(std::move(errors));
  return o;  // out_dir stays empty: the server prints, it never writes files
}

}  // namespace rb::serve
