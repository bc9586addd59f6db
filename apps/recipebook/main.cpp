// recipebook's command line: flags (CLI11, included here only) wired to one run_<name>() per
// subcommand (cmd_<name>.cpp). To add a subcommand: write cmd_<name>.{hpp,cpp} with an Options
// struct and run_<name>(), then add one add_<name>() function below and call it from main().
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "recipebook/cmd_check.hpp"
#include "recipebook/cmd_list.hpp"
#include "recipebook/cmd_show.hpp"
#include "recipebook/context.hpp"
#include "recipebook/version.hpp"

namespace {

using rb::cli::Context;

struct Globals {
  std::vector<std::string> catalog_dirs;
  bool json = false;
};

// The action chosen by the parsed subcommand, run after parsing succeeds.
using Action = std::function<int(const Context&)>;

void add_list(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("list", "List the catalog's recipes (or --models, --hardware)");
  auto opts = std::make_shared<rb::cli::ListOptions>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);
  cmd->add_flag("--models", flags->first, "List models instead of recipes");
  cmd->add_flag("--hardware", flags->second, "List GPUs instead of recipes");
  cmd->add_option("--model", opts->model, "Model name, alias, Hugging Face id or family (substring)");
  cmd->add_option("--mode", opts->mode, "pretrain | sft | peft");
  cmd->add_option("--gpu", opts->gpu, "GPU type: h100, b200, gb300, ...");
  cmd->add_option("--gpus", opts->gpus, "Exact GPU count")->check(CLI::PositiveNumber);
  cmd->add_option("--kind", opts->kind, "library | performance | verified | measured");
  cmd->add_flag("--measured", opts->measured, "Only recipes with a measured result");
  cmd->add_option("--limit", opts->limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
  cmd->footer(
      "Examples:\n"
      "  recipebook list --model qwen3 --mode sft\n"
      "  recipebook list --gpu gb300 --gpus 64 --measured\n"
      "  recipebook list --models\n"
      "  recipebook list --json | jq length");
  cmd->callback([opts, flags, &action] {
    if (flags->first) opts->what = "models";
    if (flags->second) opts->what = "hardware";
    action = [opts](const Context& ctx) { return rb::cli::run_list(*opts, ctx); };
  });
}

void add_show(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("show", "Show one recipe, model or GPU by exact name");
  auto opts = std::make_shared<rb::cli::ShowOptions>();
  cmd->add_option("name", opts->name, "Recipe, model or GPU name")->required();
  cmd->add_flag("--resolved", opts->resolved, "Apply the recipe's `extends` chain first");
  cmd->footer(
      "Examples:\n"
      "  recipebook show qwen3_30b_a3b_sft_8gpu_h100_bf16_config\n"
      "  recipebook show Qwen3-30B-A3B\n"
      "  recipebook show gb300 --json");
  cmd->callback([opts, &action] {
    action = [opts](const Context& ctx) { return rb::cli::run_show(*opts, ctx); };
  });
}

void add_check(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("check", "Check recipe records: schema, derived figures, layout rules");
  auto opts = std::make_shared<rb::cli::CheckOptions>();
  cmd->add_option("files", opts->files, "Recipe, model or hardware YAML files");
  cmd->add_flag("--builtin", opts->builtin, "Check every entry of the built-in catalog (and --catalog folders)");
  cmd->add_flag("--strict", opts->strict, "Warnings also make the exit code 1");
  cmd->add_flag("--summary", opts->summary, "Print counts instead of every finding");
  cmd->footer(
      "Output: one line per finding, all at once:\n"
      "  file:line:col: error|warning [RULE-ID] message (fix: ...)\n"
      "Exit codes: 0 no errors, 1 findings, 2 usage.\n"
      "Examples:\n"
      "  recipebook check my_recipe.yaml\n"
      "  recipebook check catalog/recipes/*/*/*.yaml --json\n"
      "  recipebook check --builtin --summary");
  cmd->callback([opts, &action] {
    action = [opts](const Context& ctx) { return rb::cli::run_check(*opts, ctx); };
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"recipebook: pick, size, check and launch LLM training recipes before you spend GPU-hours"};
  app.set_version_flag("--version", rb::cli::version());
  app.require_subcommand(1);
  Globals g;
  app.add_option("--catalog", g.catalog_dirs, "Add a catalog folder (repeatable); its entries override built-in ones")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", g.json, "Print JSON for scripts (stable field names)");
  app.footer(
      "Examples:\n"
      "  recipebook list --model llama3 --mode pretrain\n"
      "  recipebook show llama3_70b_pretrain_64gpu_h100_bf16_config\n"
      "  recipebook check my_recipe.yaml\n"
      "Run 'recipebook <command> --help' for a command's flags.");
  // Global flags are accepted after the subcommand too.
  app.fallthrough();

  Action action;
  add_list(app, action);
  add_show(app, action);
  add_check(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "recipebook: " << e.what() << "\n";
    std::cerr << "Run 'recipebook --help' or 'recipebook <command> --help'.\n";
    return rb::cli::kExitUsage;
  }
  const char* no_color = std::getenv("NO_COLOR");
  Context ctx{std::cout, std::cerr, g.catalog_dirs, g.json,
              isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0')};
  try {
    return action ? action(ctx) : rb::cli::kExitUsage;
  } catch (const std::exception& e) {  // last resort: the library reports expected failures itself
    std::cerr << "recipebook: internal error: " << e.what() << "\n";
    return 3;
  }
}
