// What every subcommand gets from main.cpp: where to print, the user's --catalog folders and
// the global output switches. Each subcommand lives in cmd_<name>.{hpp,cpp} as
//   struct <Name>Options { ... };            // plain values, filled by main.cpp from flags
//   int run_<name>(const <Name>Options&, const Context&);   // returns the exit code
// Exit codes: 0 ok, 1 findings / infeasible, 2 usage or input error.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rb::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;

struct Context {
  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> catalog_dirs;  // --catalog DIR (repeatable), in order
  bool json = false;                      // --json
  bool color = false;                     // stdout is a TTY and NO_COLOR is unset
  // The input came as a JSON body (`serve`): errors name its keys ("cp_comm_type"), not the flags
  // ("--cp-comm-type"), in their messages (resolve_setup) and as their where (report.cpp).
  bool request_keys = false;
};

}  // namespace rb::cli
