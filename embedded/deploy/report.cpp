#include "embedded/deploy/report.h"

#include <algorithm>
#include <cstdio>

namespace inmanta::deploy {

using nlohmann::json;

namespace {

const char* kReset = "\033[0m";

const char* colorOf(const std::string& status) {
  if (status == "deployed" || status == "changed") return "\033[32m";
  if (status == "failed" || status == "unavailable") return "\033[31m";
  if (status == "skipped" || status == "undefined" || status == "skipped_for_undefined" || status == "agent_down")
    return "\033[33m";
  return "\033[36m";
}

std::string paint(const std::string& text, const std::string& status, bool color) {
  return color ? colorOf(status) + text + kReset : text;
}

// A value of a change as users read it: text as is, anything else as JSON.
std::string shown(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

void printChanges(std::ostream& out, const json& changes, const std::string& indent) {
  for (const auto& [attribute, change] : changes.items()) {
    if (!change.is_object()) continue;
    out << indent << attribute << ": " << shown(change.value("current", json())) << " -> "
        << shown(change.value("desired", json())) << "\n";
  }
}

std::string formatSeconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// the deploy report

int DeployReport::exitCode() const {
  if (timedOut || interrupted) return 3;
  for (const ResourceOutcome& r : resources)
    if (r.status != "deployed") return 3;
  return 0;
}

std::string DeployReport::summaryLine() const {
  std::map<std::string, int> count;
  int changed = 0;
  for (const ResourceOutcome& r : resources) {
    ++count[r.status];
    if (r.status == "deployed" && r.change != "nochange") ++changed;
  }
  std::string line = "Deployed version " + std::to_string(version) + ": " + std::to_string(count["deployed"]) +
                     " deployed (" + std::to_string(changed) + " changed), " + std::to_string(count["failed"]) +
                     " failed, " + std::to_string(count["skipped"]) + " skipped, " +
                     std::to_string(count["unavailable"]) + " unavailable, " +
                     std::to_string(count["undefined"] + count["skipped_for_undefined"]) + " undefined";
  if (count["non_compliant"] > 0) line += ", " + std::to_string(count["non_compliant"]) + " non-compliant";
  int waiting = count["available"] + count["deploying"];
  if (waiting > 0) line += ", " + std::to_string(waiting) + " not finished";
  return line + ", in " + formatSeconds(seconds) + " s";
}

json DeployReport::toJson() const {
  json out = {{"version", version}, {"dry_run", false}, {"seconds", seconds}};
  json list = json::array();
  for (const ResourceOutcome& r : resources) {
    json item = {{"id", r.resource_id}, {"status", r.status}, {"change", r.change}, {"changes", r.changes}};
    if (!r.error.empty()) item["error"] = r.error;
    list.push_back(std::move(item));
  }
  out["resources"] = std::move(list);
  out["orphaned"] = orphaned;
  out["timed_out"] = timedOut;
  out["interrupted"] = interrupted;
  out["summary"] = summaryLine();
  out["exit_code"] = exitCode();
  return out;
}

void DeployReport::printText(std::ostream& out, bool color) const {
  auto section = [&](const std::string& title, auto&& wanted) {
    bool first = true;
    for (const ResourceOutcome& r : resources) {
      if (!wanted(r)) continue;
      if (first) out << "\n" << title << ":\n";
      first = false;
      out << "  " << r.resource_id << "  " << paint(r.status, r.status, color);
      if (r.status == "deployed" || r.change != "nochange") out << " (" << r.change << ")";
      out << "\n";
      // a created or purged resource's `purged` change only says so again
      nlohmann::json shownChanges = r.changes;
      if ((r.change == "created" || r.change == "purged") && shownChanges.is_object()) shownChanges.erase("purged");
      printChanges(out, shownChanges, "      ");
      if (!r.error.empty()) out << "      " << r.error << "\n";
    }
  };
  section("Changed", [](const ResourceOutcome& r) { return r.status == "deployed" && r.change != "nochange"; });
  section("Failed", [](const ResourceOutcome& r) { return r.status == "failed" || r.status == "unavailable"; });
  section("Skipped", [](const ResourceOutcome& r) {
    return r.status == "skipped" || r.status == "undefined" || r.status == "skipped_for_undefined";
  });
  // report_only resources that differ: what would change, nothing was changed
  section("Non-compliant (report only)", [](const ResourceOutcome& r) { return r.status == "non_compliant"; });
  section("Not finished", [](const ResourceOutcome& r) { return r.status == "available" || r.status == "deploying"; });
  if (!orphaned.empty()) {
    out << "\nOrphaned (no longer in the model, left untouched; set purged=true in the model to remove them):\n";
    for (const std::string& rid : orphaned) out << "  " << rid << "\n";
  }
  if (timedOut) out << "\nThe deploy did not finish within the time-out.\n";
  if (interrupted) out << "\nThe deploy was interrupted.\n";
  out << "\n" << paint(summaryLine(), exitCode() == 0 ? "deployed" : "failed", color) << "\n";
}

// ---------------------------------------------------------------------------------------------
// the dry-run report

int DryRunReport::exitCode() const {
  if (timedOut || interrupted) return 3;
  for (const DryRunOutcome& r : resources)
    if (r.status == "failed") return 3;
  return 0;
}

json DryRunReport::toJson() const {
  json list = json::array();
  for (const DryRunOutcome& r : resources) {
    json item = {{"id", r.resource_id}, {"status", r.status}, {"changes", r.changes}};
    if (!r.diff.empty()) item["diff"] = r.diff;
    list.push_back(std::move(item));
  }
  std::map<std::string, int> count;
  for (const DryRunOutcome& r : resources) ++count[r.status];
  return {{"version", version},
          {"dry_run", true},
          {"seconds", seconds},
          {"resources", list},
          {"summary",
           {{"would_change", count["changed"]}, {"unchanged", count["unchanged"]}, {"failed", count["failed"]}}},
          {"timed_out", timedOut},
          {"interrupted", interrupted},
          {"exit_code", exitCode()}};
}

void DryRunReport::printText(std::ostream& out, bool color) const {
  std::map<std::string, int> count;
  for (const DryRunOutcome& r : resources) {
    ++count[r.status];
    if (r.status == "unchanged") {
      out << r.resource_id << ": no changes\n";
      continue;
    }
    if (r.status != "changed") {
      out << r.resource_id << ": "
          << paint(r.status == "failed" ? "failed" : "would be skipped (" + r.status + ")", r.status, color) << "\n";
    } else {
      out << r.resource_id << ":\n";
    }
    for (const auto& [attribute, change] : r.changes.items()) {
      if (!change.is_object()) continue;
      if (attribute == "hash" && !r.diff.empty()) {
        out << "  - content:\n";
        for (const std::string& line : r.diff) {
          std::string text = line;
          while (!text.empty() && text.back() == '\n') text.pop_back();
          std::string status = text.rfind('+', 0) == 0 ? "deployed" : text.rfind('-', 0) == 0 ? "failed" : "";
          out << "      " << (status.empty() ? text : paint(text, status, color)) << "\n";
        }
        continue;
      }
      out << "  - " << attribute << ":\n";
      out << "    from: " << shown(change.value("current", json())) << "\n";
      out << "    to:   " << shown(change.value("desired", json())) << "\n";
    }
  }
  if (timedOut) out << "\nThe dry-run did not finish within the time-out.\n";
  if (interrupted) out << "\nThe dry-run was interrupted.\n";
  std::string summary = "Dry-run of version " + std::to_string(version) + ": " + std::to_string(count["changed"]) +
                        " would change, " + std::to_string(count["unchanged"]) + " unchanged, " +
                        std::to_string(count["failed"]) + " failed";
  int skipped = count["undefined"] + count["skipped_for_undefined"] + count["agent_down"];
  if (skipped > 0) summary += ", " + std::to_string(skipped) + " would be skipped";
  out << "\n" << summary << ", in " << formatSeconds(seconds) << " s\n";
}

// ---------------------------------------------------------------------------------------------
// progress

void Progress::setTotal(std::size_t total) { total_ = total; }

void Progress::onRun(scheduler::RunReport&& report) {
  if (report.dryRun) return;
  agent::RunResult& result = report.result;
  Finished run;
  run.error = result.firstError();
  if (run.error.empty() && result.status == "skipped")
    for (const handlers::LogLine& line : result.logs)
      if (line.level == "INFO" && line.msg.find(" skipped ") != std::string::npos) run.error = line.msg;
  run.resource_id = std::move(report.resource_id);
  run.status = std::move(result.status);
  run.change = result.change;
  run.stale = report.stale;
  if (!run.stale) run.changes = std::move(result.changes);
  std::lock_guard<std::mutex> lock(mutex_);
  handedOver_.push_back(std::move(run));
}

void Progress::takeIn() {
  std::vector<Finished> runs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    runs.swap(handedOver_);
  }
  for (Finished& run : runs) record(run);
}

void Progress::record(Finished& run) {
  if (!run.stale) {
    LastRun& last = results_[run.resource_id];
    last.change = run.change;
    last.changes = std::move(run.changes);
    last.error = run.error;
  }
  done_.insert(run.resource_id);
  ++counts_[run.status];
  if (bar_) {
    drawBar();
    return;
  }
  out_ << "[" << done_.size() << "/" << total_ << "] " << run.resource_id << " "
       << paint(run.status, run.status, color_) << " (" << handlers::changeName(run.change) << ")\n";
  if ((run.status == "failed" || run.status == "unavailable") && !run.error.empty())
    out_ << "    " << run.error << "\n";
}

void Progress::flush() {
  takeIn();
  out_.flush();
}

void Progress::drawBar() {
  // at most ~20 redraws a second: a terminal is slow compared with 10,000 runs
  auto now = std::chrono::steady_clock::now();
  if (done_.size() < total_ && now - lastDraw_ < std::chrono::milliseconds(50)) return;
  lastDraw_ = now;
  const int width = 30;
  int filled = total_ == 0 ? width : int(done_.size() * width / std::max<std::size_t>(total_, 1));
  std::string bar(std::size_t(std::min(filled, width)), '#');
  bar.resize(width, '.');
  out_ << "\r[" << bar << "] " << done_.size() << "/" << total_;
  for (const char* state : {"deployed", "failed", "skipped", "unavailable"})
    if (counts_[state] > 0) out_ << "  " << paint(state, state, color_) << " " << counts_[state];
  out_ << "\033[K";
  out_.flush();
}

void Progress::finish() {
  takeIn();
  if (bar_ && !done_.empty()) {
    lastDraw_ = {};
    drawBar();
    out_ << "\n";
  }
  out_.flush();
}

std::unordered_map<std::string, LastRun> Progress::takeResults() {
  takeIn();
  return std::move(results_);
}

}  // namespace inmanta::deploy
