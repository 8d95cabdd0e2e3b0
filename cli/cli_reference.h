// What is written about the command lines from their CLI11 definitions, so that it cannot drift
// from the flags the binary takes: the shell completion scripts (`inmanta completion`) and a man
// page per subcommand (`inmanta man`, run at build time).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace inmanta::cli {

enum class Shell { bash, zsh, fish };

// A completion script for `shell` that completes every root command of `roots` (`inmanta`,
// `inmanta-cli`) by its name: subcommands, their flags, and files where a value or an argument
// is expected.
std::string completionScript(Shell shell, const std::vector<const CLI::App*>& roots);

struct ManPage {
  std::string name;  // inmanta-export: the file is inmanta-export.1
  std::string text;  // roff (man macros)
};

// A page per visible subcommand of every root (inmanta-compile, inmanta-cli-environment, ...):
// its synopsis, options and nested commands, pointing at the root's hand-written overview page
// for the global options, settings and exit statuses.
std::vector<ManPage> manPages(const std::vector<const CLI::App*>& roots, const std::string& version);

}  // namespace inmanta::cli
