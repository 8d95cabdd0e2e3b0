#include "compiler/diag/warning_report.h"

#include <algorithm>

namespace inmanta::compiler {

void WarningReport::add(const std::string& kind, const std::string& message, const std::string& place, bool bundled) {
  auto [it, added] = index_.try_emplace({kind, message}, warnings_.size());
  if (added) warnings_.push_back(Warning{kind, message, {}});
  std::vector<Place>& places = warnings_[it->second].places;
  // a statement that is evaluated again warns again: one place is listed once
  bool known = std::any_of(places.begin(), places.end(), [&](const Place& p) { return p.text == place; });
  if (!known) places.push_back(Place{place, bundled});
}

void WarningReport::print(std::ostream& err, bool verbose) {
  for (const Warning& w : warnings_) {
    std::vector<const std::string*> shown;
    for (const Place& p : w.places)
      if (verbose || !p.bundled) shown.push_back(&p.text);
    if (shown.empty()) continue;
    err << w.kind << ": " << w.message;
    if (!shown.front()->empty()) err << " (" << *shown.front() << ")";
    err << "\n";
    if (shown.size() == 1) continue;
    if (verbose) {
      for (size_t i = 1; i < shown.size(); ++i) err << "    also at " << *shown[i] << "\n";
    } else {
      size_t more = shown.size() - 1;
      err << "    and " << more << " more place" << (more == 1 ? "" : "s") << " (-v lists them)\n";
    }
  }
  warnings_.clear();
  index_.clear();
}

}  // namespace inmanta::compiler
