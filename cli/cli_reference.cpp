#include "cli/cli_reference.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace inmanta::cli {

namespace {

bool visible(const CLI::App* app) { return !app->get_group().empty() && !app->get_name().empty(); }
bool visible(const CLI::Option* opt) { return !opt->get_group().empty() && opt->nonpositional(); }
// a flag expects no value (CLI11 sets that for every add_flag)
bool takesValue(const CLI::Option* opt) { return opt->get_items_expected_max() > 0; }

// A description as a sentence of the page.
std::string sentence(const std::string& text) { return text.empty() || text.back() == '.' ? text : text + "."; }

std::vector<const CLI::App*> subcommandsOf(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return visible(sub); });
}

std::vector<const CLI::Option*> optionsOf(const CLI::App& app) {
  return app.get_options([](const CLI::Option* opt) { return visible(opt); });
}

// "-j", "--json": the short names first, as --help lists them
std::vector<std::string> namesOf(const CLI::Option* opt) {
  std::vector<std::string> names;
  for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  return names;
}

// "inmanta-cli environment create": the names from the root down
std::string commandPath(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* up = app.get_parent(); up != nullptr; up = up->get_parent()) path = up->get_name() + " " + path;
  return path;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// ------------------------------------------------------------------------------- completion

// What completes after a command path: its subcommands, its flags, and the flags that take a
// value (the next word is that value, not a subcommand).
struct Level {
  std::string path;
  std::string subcommands;
  std::string options;
  std::string valued;
};

void collectLevels(const CLI::App& app, std::vector<Level>& out) {
  std::vector<std::string> subs;
  std::vector<std::string> opts;
  std::vector<std::string> valued;
  for (const CLI::App* sub : subcommandsOf(app)) subs.push_back(sub->get_name());
  for (const CLI::Option* opt : optionsOf(app))
    for (const std::string& name : namesOf(opt)) {
      opts.push_back(name);
      if (takesValue(opt)) valued.push_back(name);
    }
  out.push_back(Level{commandPath(app), join(subs), join(opts), join(valued)});
  for (const CLI::App* sub : subcommandsOf(app)) collectLevels(*sub, out);
}

std::vector<Level> levelsOf(const std::vector<const CLI::App*>& roots) {
  std::vector<Level> levels;
  for (const CLI::App* root : roots) collectLevels(*root, levels);
  return levels;
}

std::string rootNames(const std::vector<const CLI::App*>& roots) {
  std::vector<std::string> names;
  for (const CLI::App* root : roots) names.push_back(root->get_name());
  return join(names);
}

// The table as a function that bash and zsh both read: sets subs, opts and valued for the
// command path in $1 (the names are words of [-A-Za-z0-9_], safe in quotes); and the walk over
// the words before the cursor: a subcommand name goes one level down (cmd), a flag that takes a
// value skips that value (value_next: the word at the cursor is one).
std::string shellFunctions(const std::vector<Level>& levels) {
  std::string out = "_inmanta_words() {\n  subs='' opts='' valued=''\n  case \"$1\" in\n";
  for (const Level& l : levels)
    out += "    '" + l.path + "') subs='" + l.subcommands + "' opts='" + l.options + "' valued='" + l.valued + "' ;;\n";
  return out + R"(  esac
}
_inmanta_walk() {
  local word
  value_next=0
  for word in "$@"; do
    if ((value_next)); then
      value_next=0
      continue
    fi
    _inmanta_words "$cmd"
    if [[ " $valued " == *" $word "* ]]; then
      value_next=1
    elif [[ $word != -* && " $subs " == *" $word "* ]]; then
      cmd="$cmd $word"
    fi
  done
  _inmanta_words "$cmd"
}
)";
}

std::string bashScript(const std::vector<const CLI::App*>& roots) {
  return "# bash completion for " + rootNames(roots) +
         ", made by `inmanta completion bash` from the command-line definitions.\n"
         "# Load it with: source <(inmanta completion bash)\n" +
         shellFunctions(levelsOf(roots)) +
         R"(_inmanta() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${1##*/} subs opts valued value_next
  _inmanta_walk "${COMP_WORDS[@]:1:COMP_CWORD-1}"
  if ((value_next)); then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
  elif [[ -n $subs ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _inmanta )" +
         rootNames(roots) + "\n";
}

std::string zshScript(const std::vector<const CLI::App*>& roots) {
  return "#compdef " + rootNames(roots) + "\n# zsh completion for " + rootNames(roots) +
         ", made by `inmanta completion zsh` from the command-line definitions.\n"
         "# Load it with: source <(inmanta completion zsh), or save it as _inmanta in a folder of $fpath\n" +
         shellFunctions(levelsOf(roots)) +
         R"(_inmanta() {
  local cmd=${words[1]:t} subs opts valued value_next
  _inmanta_walk "${(@)words[2,CURRENT-1]}"
  if ((value_next)); then
    _files
  elif [[ $PREFIX == -* ]]; then
    compadd -- ${=opts}
  elif [[ -n $subs ]]; then
    compadd -- ${=subs}
  else
    _files
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _inmanta "$@"
else
  compdef _inmanta )" +
         rootNames(roots) + "\nfi\n";
}

std::string fishScript(const std::vector<const CLI::App*>& roots) {
  std::string out = "# fish completion for " + rootNames(roots) +
                    ", made by `inmanta completion fish` from the command-line definitions.\n"
                    "# Load it with: inmanta completion fish | source\n"
                    "function __inmanta_words --argument-names cmd\n"
                    "    set -g __inmanta_subs\n    set -g __inmanta_opts\n    set -g __inmanta_valued\n"
                    "    switch $cmd\n";
  for (const Level& l : levelsOf(roots))
    out += "        case '" + l.path + "'\n            set -g __inmanta_subs " + l.subcommands +
           "\n            set -g __inmanta_opts " + l.options + "\n            set -g __inmanta_valued " + l.valued +
           "\n";
  out += R"(    end
end
function __inmanta_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd (basename -- $words[1])
    set -e words[1]
    set -l skip 0
    for word in $words
        if test $skip = 1
            set skip 0
            continue
        end
        __inmanta_words $cmd
        if contains -- $word $__inmanta_valued
            set skip 1
        else if contains -- $word $__inmanta_subs
            set cmd "$cmd $word"
        end
    end
    __inmanta_words $cmd
    if test $skip = 1
        __fish_complete_path $cur
    else if string match -q -- '-*' $cur
        printf '%s\n' $__inmanta_opts
    else if set -q __inmanta_subs[1]
        printf '%s\n' $__inmanta_subs
    else
        __fish_complete_path $cur
    end
end
)";
  for (const CLI::App* root : roots) out += "complete -c " + root->get_name() + " -f -a '(__inmanta_complete)'\n";
  return out;
}

// ------------------------------------------------------------------------------- man pages

// Text as roff reads it: a backslash and a minus escaped, a line that would start with a control
// character guarded.
std::string roff(const std::string& text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\'')) out += "\\&";
    lineStart = c == '\n';
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  return out;
}

// The value's placeholder: what a check says it is (CLI11's "TEXT:FILE", "TEXT:{a,b}"), else the
// value's type (INT, TEXT).
std::string valueLabel(const CLI::Option* opt) {
  std::string type = opt->get_type_name();
  size_t colon = type.rfind(':');
  if (colon == std::string::npos) return type.empty() ? "VALUE" : type;
  std::string checked = type.substr(colon + 1);
  if (checked == "FILE" || checked == "DIR" || checked == "PATH" || checked.starts_with('{')) return checked;
  return type.substr(0, type.find(':'));
}

// `withHelp`: -h/--help too (listed once per page, not for every nested command)
void writeOptions(std::ostringstream& out, const CLI::App& app, bool withHelp) {
  for (const CLI::Option* opt : optionsOf(app)) {
    if (!withHelp && opt == app.get_help_ptr()) continue;
    out << ".TP\n";
    std::vector<std::string> names = namesOf(opt);
    for (size_t i = 0; i < names.size(); ++i) out << (i == 0 ? "" : ", ") << "\\fB" << roff(names[i]) << "\\fR";
    if (takesValue(opt)) out << " \\fI" << roff(valueLabel(opt)) << "\\fR";
    out << "\n" << roff(opt->get_description());
    if (!opt->get_default_str().empty()) out << " (default: " << roff(opt->get_default_str()) << ")";
    if (takesValue(opt) && opt->get_expected_max() == CLI::detail::expected_max_vector_size)
      out << " (may be given more than once)";
    out << "\n";
  }
}

// One synopsis line: the command path in bold, then its options and arguments.
void writeSynopsis(std::ostringstream& out, const CLI::App& app) {
  out << ".B " << roff(commandPath(app)) << "\n";
  if (!optionsOf(app).empty()) out << "[\\fIOPTIONS\\fR]\n";
  for (const CLI::Option* opt : app.get_options([](const CLI::Option* o) { return !o->nonpositional(); }))
    out << "\\fI" << roff(opt->get_name(true)) << "\\fR"
        << (opt->get_expected_max() == CLI::detail::expected_max_vector_size ? "..." : "") << "\n";
  if (!subcommandsOf(app).empty()) out << "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out << ".br\n";
}

std::string pageName(const CLI::App& app) {
  std::string path = commandPath(app);
  std::replace(path.begin(), path.end(), ' ', '-');
  return path;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

ManPage manPage(const CLI::App& app, const std::string& version) {
  const std::string root = app.get_parent()->get_name();
  std::ostringstream out;
  out << ".\\\" Made by `inmanta man` from the command-line definitions: do not edit.\n";
  out << ".TH " << roff(upper(pageName(app))) << " 1 \"\" \"inmanta-cpp " << roff(version) << "\" \"User Commands\"\n";
  out << ".SH NAME\n" << roff(pageName(app)) << " \\- " << roff(app.get_description()) << "\n";
  out << ".SH SYNOPSIS\n";
  writeSynopsis(out, app);
  std::vector<const CLI::App*> nested;
  for (const CLI::App* sub : subcommandsOf(app)) nested.push_back(sub);
  for (size_t i = 0; i < nested.size(); ++i)  // deeper levels too, in order
    for (const CLI::App* sub : subcommandsOf(*nested[i])) nested.push_back(sub);
  for (const CLI::App* sub : nested) writeSynopsis(out, *sub);
  out << ".SH DESCRIPTION\n" << roff(sentence(app.get_description())) << "\n";
  if (!app.get_footer().empty()) out << roff(app.get_footer()) << "\n";
  out << "The options of \\fB" << roff(root) << "\\fR itself (given before \\fB" << roff(app.get_name())
      << "\\fR), the configuration files, the environment and the exit statuses are described in\n"
      << ".BR " << roff(root) << " (1).\n";
  if (!optionsOf(app).empty()) {
    out << ".SH OPTIONS\n";
    writeOptions(out, app, true);
  }
  if (!nested.empty()) {
    out << ".SH COMMANDS\n";
    for (const CLI::App* sub : nested) {
      out << ".SS \"" << roff(commandPath(*sub)) << "\"\n" << roff(sentence(sub->get_description())) << "\n";
      if (optionsOf(*sub).size() > (sub->get_help_ptr() != nullptr ? 1 : 0)) {
        out << ".PP\nOptions:\n";
        writeOptions(out, *sub, false);
      }
    }
  }
  out << ".SH SEE ALSO\n.BR " << roff(root) << " (1)\n";
  return ManPage{pageName(app), out.str()};
}

}  // namespace

std::string completionScript(Shell shell, const std::vector<const CLI::App*>& roots) {
  switch (shell) {
    case Shell::bash: return bashScript(roots);
    case Shell::zsh: return zshScript(roots);
    case Shell::fish: return fishScript(roots);
  }
  return {};
}

std::vector<ManPage> manPages(const std::vector<const CLI::App*>& roots, const std::string& version) {
  std::vector<ManPage> pages;
  for (const CLI::App* root : roots)
    for (const CLI::App* sub : subcommandsOf(*root)) pages.push_back(manPage(*sub, version));
  return pages;
}

}  // namespace inmanta::cli
