#include "recipebook/layout_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/catalog/recipe_match.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/rules/pipeline_split.hpp"
#include "recipebook/search/resize.hpp"

namespace rb::cli {
namespace {

// The name of a flag in messages: "--gpus-per-node" or the JSON key "gpus_per_node".
std::string flag(std::string_view name, bool json_keys) {
  std::string n(name);
  if (json_keys) {
    for (auto& c : n)
      if (c == '-') c = '_';
    return "\"" + n + "\"";
  }
  return "--" + n;
}

template <typename T>
std::optional<Error> in_range(std::string_view name, T value, T lo, T hi, bool json_keys, const char* what = "") {
  if (value >= lo && value <= hi) return std::nullopt;
  return Error(fmt::format("{} {} is out of range: it must be between {} and {}{}", flag(name, json_keys), value, lo,
                           hi, what));
}


// The record `a.recipe` names under the flags of `a`: every field `a` leaves unset takes the
// record's value. `base` gets the record's layout; `notes` what the record left open.
struct RecipeBase {
  RecipeSetup setup;
  bool layout_recorded = false;  // TP, PP, CP (and EP for a MoE model) recorded
};

Result<RecipeBase> recipe_base(LayoutArgs& a, const Catalog& catalog, bool json_keys) {
  auto found = catalog.find_recipe(a.recipe);
  if (!found) return fail(flag("recipe", json_keys) + ": " + found.error().message, {}, found.error().fix);
  RecipeBase b;
  b.setup = recipe_setup(catalog, **found);
  const Recipe& r = b.setup.recipe;
  b.layout_recorded = b.setup.layout_recorded;
  // The record's node shape is its own GPU's (GB200 and GB300 nodes hold 4), as for `launch`.
  if (a.gpus_per_node == 0 && (a.gpu.empty() || fold_name(a.gpu) == fold_name(r.gpu))) a.gpus_per_node = r.gpus_per_node;
  if (a.model.empty()) a.model = r.model;
  if (a.gpu.empty()) a.gpu = r.gpu;
  if (a.gpus == 0) a.gpus = r.gpus;
  if (a.mode.empty()) a.mode = std::string(mode_name(r.mode));
  if (a.seq == 0) a.seq = b.setup.seq;
  if (a.gbs == 0) a.gbs = r.gbs;
  if (a.max_pixels == 0) a.max_pixels = r.image.max_pixels;
  if (a.images_per_sample == 0) a.images_per_sample = r.image.images_per_sample;
  if (a.vision_graph_patches == 0) a.vision_graph_patches = r.image.graph_max_patches;
  return b;
}

}  // namespace

std::optional<Error> apply_headroom(const std::string& text, Hardware& hw, const std::string& flag_name) {
  const auto h = parse_memory_headroom(text);
  if (!h)
    return Error(flag_name + ": '" + text + "' is not a headroom", {},
                 "give GiB (2, 2GiB, 512MiB, 3GB) or a percentage of the GPU's memory below 100 (5%)");
  hw.headroom_fixed_bytes = h->fixed_bytes;
  hw.headroom_fraction = h->fraction;
  if (hw.memory_bytes > 0 && hw.headroom_bytes() >= hw.memory_bytes)
    return Error(fmt::format("{}: {} leaves nothing of the {:.1f} GiB of one {}", flag_name, text,
                             hw.memory_bytes / (1024.0 * 1024.0 * 1024.0), hw.name));
  return std::nullopt;
}

Result<Setup> resolve_setup(const LayoutArgs& in, const Catalog& catalog, bool json_keys) {
  auto fl = [&](std::string_view n) { return flag(n, json_keys); };
  LayoutArgs a = in;
  Setup s;
  std::optional<RecipeBase> base;
  if (!a.recipe.empty()) {
    auto b = recipe_base(a, catalog, json_keys);
    if (!b) return tl::unexpected(b.error());
    base = std::move(*b);
    s.recipe = base->setup.recipe.name;
  }
  // What a value came from, in messages: the flag, or the recipe that recorded it.
  const std::string from_recipe = base ? fl("recipe") + " " + s.recipe + ": the recipe's " : "";
  auto source = [&](std::string_view n, bool given) { return given || !base ? fl(n) : from_recipe + std::string(n); };
  const std::string no_record = base ? " (the recipe records none)" : "";
  if (a.model.empty()) return fail(fl("model") + " is required" + no_record, {}, "name a catalog model, a Hugging Face id or a config.json path");
  if (a.gpu.empty()) return fail(fl("gpu") + " is required" + no_record, {}, "e.g. h100, b200, gb300 (see 'recipebook list --hardware')");
  if (a.seq == 0) {
    a.seq = kDefaultSeq;
    if (base) s.notes.push_back(fmt::format("the recipe records no sequence length: {}", kDefaultSeq));
  }
  if (a.mode.empty()) a.mode = "pretrain";

  const std::string model_flag = source("model", !in.model.empty());
  auto model = catalog.find_model(a.model);
  if (!model) return fail(model_flag + ": " + model.error().message, model.error().where, model.error().fix);
  if (!model->has_architecture)
    return fail(model_flag + ": " + no_architecture_reason(*model), {},
                model->kind.empty() ? "give the path to its Hugging Face config.json instead" : "");
  s.model = *model;
  const std::string gpu_flag = source("gpu", !in.gpu.empty());
  auto hw = catalog.find_hardware(a.gpu);
  if (!hw) return fail(gpu_flag + ": " + hw.error().message, {}, hw.error().fix);
  if (!hw->has_specs)
    return fail(gpu_flag + ": the catalog has no figures for " + hw->name + " (memory, peak FLOP/s)", {},
                base && in.gpu.empty() ? "estimate it on another GPU with --gpu NAME, or add a hardware YAML with them via --catalog DIR"
                                       : "add a hardware YAML with them via --catalog DIR");
  s.hardware = *hw;
  if (auto e = apply_headroom(a.headroom, s.hardware, fl("headroom"))) return tl::unexpected(*e);
  // After the model and GPU: what a recipe cannot be estimated for comes before what it leaves out.
  if (a.gpus <= 0) return fail(fl("gpus") + " is required and must be at least 1" + no_record);
  if (a.gbs <= 0) return fail(fl("gbs") + " (global batch, in sequences) is required and must be at least 1" + no_record);

  auto mode = parse_mode(a.mode);
  if (!mode) return fail(fl("mode") + ": unknown mode '" + a.mode + "'", {}, "use pretrain, sft or peft");
  s.workload.mode = *mode;
  s.workload.seq = a.seq;
  s.workload.gbs = a.gbs;
  s.workload.tokens_budget = a.tokens;
  s.workload.lora_rank = a.lora_rank;
  s.workload.image = {a.max_pixels, std::max(1, a.images_per_sample), a.vision_graph_patches};
  s.cluster.gpus = a.gpus;
  s.cluster.gpus_per_node = a.gpus_per_node;
  if (!fills_whole_nodes(a.gpus, a.gpus_per_node))
    return fail(fmt::format("{}: {} GPUs do not fill whole nodes of {}", fl("gpus-per-node"), a.gpus, a.gpus_per_node),
                {}, fmt::format("use a GPU count that is a multiple of {}, or the nodes' real GPU count", a.gpus_per_node));

  // The layout flags over Layout's defaults, exactly as `launch` applies them; their errors name the
  // flag in the message (a batch line's error object has no separate location).
  Layout& l = s.layout;
  if (base) {
    const Recipe& r = base->setup.recipe;
    if (!base->layout_recorded) {
      if (!a.layout.any())
        return fail(fl("recipe") + " " + r.name + ": the record does not give its whole layout (TP, PP, CP" +
                        (s.model.is_moe() ? ", EP" : "") + ")",
                    {}, "give the degrees as flags (--tp, --pp, --cp, --ep); those not given are taken as 1");
      s.notes.push_back("the record does not give its whole layout: degrees not given as flags are taken as 1");
    }
    l = r.layout;
    // On another GPU, the dispatcher the record's code picks there (DeepEP falls back to alltoall on
    // GB200/GB300), as launch writes it.
    if (!in.gpu.empty()) l.dispatcher = own_dispatcher(r, s.hardware.name);
    if (!r.precision_known) {
      l.precision = Precision::kBf16;
      if (a.layout.precision.empty()) s.notes.push_back("the recipe records no precision: bf16");
    }
  }
  if (auto ok = apply_layout_flags(a.layout, l, /*from_flags_only=*/!base); !ok) {
    const std::string& f = ok.error().where.file;  // "--precision"
    return fail((f.rfind("--", 0) == 0 ? fl(f.substr(2)) : f) + ": " + ok.error().message, {}, ok.error().fix);
  }
  apply_unset_etp(l, s.model.is_moe(), a.layout.etp.has_value(), base ? &base->setup.recipe : nullptr);
  // The recipe's own pipeline with layers its PP does not divide: Megatron-Bridge splits them in
  // code, modelled as the most balanced split (as `recommend` and bench/agreement.cpp do).
  if (base && l.pp == base->setup.recipe.layout.pp && l.vp == base->setup.recipe.layout.vp) {
    const Layout modelled = modelled_layout(s.model.num_layers(), l);
    if (stage_split_of(modelled) != stage_split_of(l) || modelled.vp != l.vp)
      s.notes.push_back(fmt::format(
          "the record gives no split of the {} layers over PP {}{} (Megatron-Bridge splits them in its own code): "
          "estimated as {}{}",
          s.model.num_layers(), l.pp, l.vp > 1 ? fmt::format(" x VP {}", l.vp) : "",
          modelled.vp != l.vp ? fmt::format("VP {} with ", modelled.vp) : "", stage_split_words(modelled)));
    l = modelled;
  }

  const std::array<std::optional<Error>, 24> range_errors{
      in_range<int>("gpus", a.gpus, 1, 1 << 20, json_keys),
      in_range<int>("gpus-per-node", a.gpus_per_node, 0, 1024, json_keys),
      in_range<int64_t>("seq", a.seq, 1, 10'000'000, json_keys, " tokens"),
      in_range<int64_t>("gbs", a.gbs, 1, 100'000'000, json_keys, " sequences"),
      in_range<int>("mbs", l.mbs, 1, 4096, json_keys),
      in_range<int>("tp", l.tp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("pp", l.pp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("vp", l.vp, 1, 1024, json_keys),
      in_range<int>("cp", l.cp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("ep", l.ep, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("etp", l.etp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("first-stage-layers", l.first_stage_layers, 0, 100'000, json_keys, " (0 means: an even split)"),
      in_range<int>("last-stage-layers", l.last_stage_layers, 0, 100'000, json_keys, " (0 means: an even split)"),
      in_range<int>("recompute-layers", l.recompute_layers, 1, 100'000, json_keys),
      in_range<int>("cpu-offload-layers", l.cpu_offload_layers, 0, 100'000, json_keys),
      in_range<double>("optimizer-offload-fraction", l.optimizer_offload_fraction, 0, 1, json_keys),
      in_range<double>("activation-offload-fraction", l.activation_offload_fraction, 0, 1, json_keys),
      in_range<double>("hidden-dropout", l.hidden_dropout, 0, 1, json_keys),
      in_range<double>("attention-dropout", l.attention_dropout, 0, 1, json_keys),
      in_range<int>("lora-rank", a.lora_rank, 1, 65'536, json_keys),
      in_range<double>("tokens", a.tokens, 0, 1e18, json_keys),
      in_range<int64_t>("max-pixels", a.max_pixels, 0, int64_t{1} << 40, json_keys),
      in_range<int>("images-per-sample", a.images_per_sample, 0, 65'536, json_keys),
      in_range<int64_t>("vision-graph-patches", a.vision_graph_patches, 0, int64_t{1} << 40, json_keys),
  };
  // Every value out of range at once, in one error (it names each flag or key; `where`, the first).
  std::optional<Error> out_of_range;
  for (const auto& e : range_errors) {
    if (!e) continue;
    if (!out_of_range) out_of_range = *e;
    else out_of_range->message += "; " + e->message;
  }
  if (out_of_range) return tl::unexpected(*out_of_range);
  // A VLM run's image budget: what the vision tower runs on (estimate/vision.hpp), or why it does not.
  if (const ImageBudget& img = s.workload.image; img.max_pixels > 0) {
    const int64_t per_image = vision_patches_per_image(s.model.vision, img.max_pixels);
    const int64_t per_mb = per_image * l.mbs * img.images_per_sample;
    if (s.model.vision.layers <= 0)
      s.notes.push_back("the image budget is ignored: " + s.model.name + " has no vision tower in the catalog");
    else
      s.notes.push_back(fmt::format("vision tower on the first stage: {} patches per image, {} per micro batch{}",
                                    per_image, per_mb,
                                    img.graph_max_patches > 0
                                        ? fmt::format(" (the vision CUDA graph computes {})", std::max(per_mb, img.graph_max_patches))
                                        : ""));
  }

  const int64_t mp = static_cast<int64_t>(l.tp) * l.pp * l.cp;  // each <= gpus: no overflow in 64 bits
  l.dp = a.gpus % mp == 0 ? static_cast<int>(a.gpus / mp) : 0;  // 0: the rules report RB-WORLD-DIVISIBLE
  return s;
}

std::string flags_text(const Layout& l, const ImageBudget& image) {
  std::string out = flags_text(l);
  if (image.max_pixels <= 0) return out;
  out += fmt::format(" --max-pixels {}", image.max_pixels);
  if (image.images_per_sample > 1) out += fmt::format(" --images-per-sample {}", image.images_per_sample);
  if (image.graph_max_patches > 0) out += fmt::format(" --vision-graph-patches {}", image.graph_max_patches);
  return out;
}

RuleInput rule_input(const Setup& s) {
  RuleInput in;
  in.model = &s.model;
  in.hardware = &s.hardware;
  in.workload = s.workload;
  in.cluster = s.cluster;
  in.layout = s.layout;
  return in;
}

namespace {

std::string flags_text_of(const Layout& l, bool fixed_only) {
  const Layout defaults;
  std::string out;
  for (const LayoutField& r : layout_fields()) {
    if (fixed_only && (r.plan != PlanRole::kFixed || field_text(r, l) == field_text(r, defaults))) continue;
    // A field that means nothing beside the others (recompute_layers without full recompute), or
    // whose value estimate takes without its flag (its row's `implied`, else Layout's default).
    if (!field_in_force(r, l) || (r.implied != nullptr ? r.implied(l) : field_text(r, l) == field_text(r, defaults)))
      continue;
    const std::string name = flag_name(r).substr(2);
    out += out.empty() ? "--" : " --";
    if (r.kind == FieldKind::kBool) {
      out += (l.*r.bool_member ? "" : "no-") + name;
      continue;
    }
    // A pipeline layout ("Et*3|t*4") is quoted for the shell.
    const std::string value = field_text(r, l);
    const bool quote = value.find_first_of("|*()") != std::string::npos;
    out += name + " " + (quote ? "'" + value + "'" : value);
  }
  return out;
}

}  // namespace

std::string flags_text(const Layout& l) { return flags_text_of(l, false); }
std::string fixed_flags_text(const Layout& l) { return flags_text_of(l, true); }

tl::expected<nlohmann::json, std::vector<Error>> parse_json_body(std::string_view text) {
  using Json = nlohmann::json;
  std::vector<Error> errors;
  std::vector<std::vector<std::string>> keys;  // the keys seen in each object being read, innermost last
  const Json::parser_callback_t seen = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start: keys.emplace_back(); break;
      case Json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && parsed.is_string()) {
          const std::string k = parsed.get<std::string>();
          auto& in = keys.back();
          if (std::find(in.begin(), in.end(), k) != in.end())
            errors.push_back(Error("the key \"" + k + "\" is given twice", {k}, "give each key once"));
          else
            in.push_back(k);
        }
        break;
      default: break;
    }
    return true;
  };
  try {
    Json j = Json::parse(text.begin(), text.end(), seen);
    if (!errors.empty()) return tl::unexpected(std::move(errors));
    return j;
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ..."
    std::string what = e.what();
    if (const size_t at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    return tl::unexpected(std::vector<Error>{Error("not valid JSON: " + what, {}, "send one JSON object")});
  }
}

tl::expected<LayoutArgs, std::vector<Error>> layout_args_from_json(const nlohmann::json& j, const LayoutArgs& defaults) {
  if (!j.is_object())
    return tl::unexpected(std::vector<Error>{Error("each line must be a JSON object with the same keys as the flags")});
  std::vector<Error> errors;
  LayoutArgs a = defaults;
  // Every key, for the "did you mean" hint: the setup's and the layout flags'.
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k{"recipe", "model", "gpu", "gpus", "gpus_per_node", "mode", "seq", "gbs", "tokens", "lora_rank", "headroom"};
    const auto& flags = layout_flag_keys();
    k.insert(k.end(), flags.begin(), flags.end());
    return k;
  }();
  for (const auto& [key, v] : j.items()) {
    // Every error names its key as `where` (the server's 4xx bodies, --batch lines).
    auto flag = read_layout_flag(key, v, a.layout);  // a layout key: read (or its type error)
    if (!flag) {
      errors.push_back(at_key(flag.error(), key));
      continue;
    }
    if (*flag) continue;
    auto type_error = [&, k = key](const char* want) {
      return Error("\"" + k + "\" must be " + want + ", found " + std::string(v.type_name()));
    };
    // `min`: the flag's own bound (a count is at least 1, as kPositive checks it; 0 would read as
    // "the recipe's" once merged).
    auto get_int = [&](auto& out, int64_t min = std::numeric_limits<int64_t>::min()) -> std::optional<Error> {
      using T = std::remove_reference_t<decltype(out)>;
      if (!v.is_number_integer()) return type_error("an integer");
      const auto wide = v.get<int64_t>();
      if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max())
        return Error("\"" + key + "\" is out of range: " + std::to_string(wide));
      if (wide < min) return Error(fmt::format("\"{}\" must be at least {}, not {}", key, min, wide));
      out = static_cast<T>(wide);
      return std::nullopt;
    };
    auto get_str = [&](std::string& out) -> std::optional<Error> {
      if (!v.is_string()) return type_error("a string");
      out = v.get<std::string>();
      return std::nullopt;
    };
    std::optional<Error> err;
    if (key == "recipe") err = get_str(a.recipe);
    else if (key == "model") err = get_str(a.model);
    else if (key == "gpu") err = get_str(a.gpu);
    else if (key == "mode") err = get_str(a.mode);
    else if (key == "gpus") err = get_int(a.gpus, 1);
    else if (key == "gpus_per_node") err = get_int(a.gpus_per_node, 1);
    else if (key == "seq") err = get_int(a.seq, 1);
    else if (key == "gbs") err = get_int(a.gbs, 1);
    else if (key == "max_pixels") err = get_int(a.max_pixels);
    else if (key == "images_per_sample") err = get_int(a.images_per_sample);
    else if (key == "vision_graph_patches") err = get_int(a.vision_graph_patches);
    else if (key == "lora_rank") err = get_int(a.lora_rank);
    else if (key == "headroom") {
      if (v.is_number()) a.headroom = fmt::format("{}", v.get<double>());  // GiB
      else err = get_str(a.headroom);
    } else if (key == "tokens") {
      if (v.is_number()) a.tokens = v.get<double>();
      else err = type_error("a number");
    } else {
      errors.push_back(unknown_key(key, kKeys));
    }
    if (err) errors.push_back(at_key(*err, key));
  }
  if (!errors.empty()) return tl::unexpected(std::move(errors));
  return a;
}

}  // namespace rb::cli
