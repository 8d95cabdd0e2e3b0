// `inmanta completion bash|zsh|fish` prints a shell completion script, and the hidden `inmanta man
// DIR` writes a man page per subcommand (the build runs it): both are made from the command-line
// definitions of `inmanta` and of `inmanta-cli` (cli_reference.h), so they follow every flag.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/cli_reference.h"
#include "cli/command.h"
#include "cli/inmanta_cli/session.h"
#include "installer/installer.h"

#ifndef INMANTA_VERSION
#define INMANTA_VERSION "0.0.0"
#endif

namespace inmanta::cli {

namespace {

// Both command lines: `inmanta`'s root (the app being parsed) and a fresh `inmanta-cli` one.
class BothCommandLines {
 public:
  explicit BothCommandLines(const CLI::App& inmanta) : inmanta_(&inmanta), inmantaCli_(makeInmantaCliApp(session_)) {}
  std::vector<const CLI::App*> roots() const { return {inmanta_, inmantaCli_.get()}; }

 private:
  const CLI::App* inmanta_;
  client::Session session_;
  std::unique_ptr<CLI::App> inmantaCli_;
};

class CompletionCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    root_ = &app;
    CLI::App* cmd = app.add_subcommand("completion",
                                       "Print the shell completion script of inmanta and inmanta-cli (source <(inmanta "
                                       "completion bash))");
    cmd->footer(
        "The script completes both inmanta and inmanta-cli: their commands, flags, and files where a value is "
        "expected. Installed, it is share/bash-completion/completions/inmanta (and inmanta-cli), "
        "share/zsh/site-functions/_inmanta and share/fish/vendor_completions.d/inmanta.fish (and inmanta-cli.fish).");
    static const std::map<std::string, Shell> kShells{{"bash", Shell::bash},
                                                      {"zsh", Shell::zsh},
                                                      {"fish", Shell::fish}};
    cmd->add_option("shell", shell_, "The shell: bash, zsh or fish")
        ->required()
        ->transform(CLI::CheckedTransformer(kShells, CLI::ignore_case));
    return cmd;
  }

  int run(const GlobalOptions&) override {
    BothCommandLines lines(*root_);
    std::cout << completionScript(shell_, lines.roots());
    return 0;
  }

 private:
  const CLI::App* root_ = nullptr;
  Shell shell_ = Shell::bash;
};

class ManCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    root_ = &app;
    CLI::App* cmd = app.add_subcommand("man", "Write a man page per subcommand of inmanta and inmanta-cli into DIR");
    cmd->group("");  // not listed: the build runs it
    cmd->add_option("dir", dir_, "The folder to write the pages in")->required();
    return cmd;
  }

  int run(const GlobalOptions&) override {
    BothCommandLines lines(*root_);
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw installer::ProjectError("cannot create " + dir_ + ": " + ec.message());
    for (const ManPage& page : manPages(lines.roots(), INMANTA_VERSION)) {
      std::string path = (std::filesystem::path(dir_) / (page.name + ".1")).string();
      std::ofstream file(path, std::ios::binary | std::ios::trunc);
      file << page.text;
      if (!file.flush()) throw installer::ProjectError("cannot write " + path);
    }
    return 0;
  }

 private:
  const CLI::App* root_ = nullptr;
  std::string dir_;
};

}  // namespace

std::unique_ptr<Command> makeCompletionCommand() { return std::make_unique<CompletionCommand>(); }
std::unique_ptr<Command> makeManCommand() { return std::make_unique<ManCommand>(); }

}  // namespace inmanta::cli
