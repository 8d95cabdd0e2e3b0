#include "compiler/diag/warning_report.h"

#include <algorithm>

namespace inmanta::compiler {

void WarningReport::add(const std::string& kind, const std::string& message, const std::string& place, bool bundled) {
  add(kind, message, place, bundled, Position{});
}

void WarningReport::add(const std::string& kind, const std::string& message, const std::string& place, bool bundled,
                        Position position) {
  auto [it, added] = index_.try_emplace({kind, message}, warnings_.size());
  if (added) warnings_.push_back(Warning{kind, message, {}});
  std::vector<Place>& places = warnings_[it->second].places;
  // a statement that is evaluated again warns again: one place is listed once
  bool known = std::any_of(places.begin(), places.end(), [&](const Place& p) { return p.text == place; });
  if (!known) places.push_back(Place{place, bundled, std::move(position)});
}

std::vector<WarningReport::Warning> WarningReport::take(bool verbose) {
  std::vector<Warning> out;
  for (Warning& w : warnings_) {
    if (!verbose)
      w.places.erase(std::remove_if(w.places.begin(), w.places.end(), [](const Place& p) { return p.bundled; }),
                     w.places.end());
    if (!w.places.empty()) out.push_back(std::move(w));
  }
  warnings_.clear();
  index_.clear();
  return out;
}

void WarningReport::print(std::ostream& err, bool verbose, const Style& style) {
  for (const Warning& w : take(verbose)) {
    const std::vector<Place>& shown = w.places;
    err << style.warning(w.kind) << ": " << w.message;
    if (!shown.front().text.empty()) err << " (" << style.location(shown.front().text) << ")";
    err << "\n";
    if (shown.size() == 1) continue;
    if (verbose) {
      for (size_t i = 1; i < shown.size(); ++i) err << "    also at " << style.location(shown[i].text) << "\n";
    } else {
      size_t more = shown.size() - 1;
      err << "    and " << more << " more place" << (more == 1 ? "" : "s") << " (-v lists them)\n";
    }
  }
}

}  // namespace inmanta::compiler
