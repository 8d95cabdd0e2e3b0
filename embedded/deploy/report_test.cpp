// The progress of `inmanta deploy`: runs handed over by worker threads, what is printed of them
// and what the report keeps (report.h).
#include "embedded/deploy/report.h"

#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace inmanta::deploy {
namespace {

scheduler::RunReport runOf(const std::string& rid, const std::string& status, handlers::Change change,
                           std::vector<handlers::LogLine> logs = {}) {
  scheduler::RunReport report;
  report.resource_id = rid;
  report.version = 1;
  report.result.status = status;
  report.result.change = change;
  report.result.logs = std::move(logs);
  return report;
}

TEST(Progress, KeepsWhatTheReportNeedsOfRunsHandedOverByAnotherThread) {
  std::ostringstream out;
  Progress progress(out, false, false);
  progress.setTotal(4);
  std::thread worker([&progress] {
    auto changed = runOf("std::File[h,path=/a]", "deployed", handlers::Change::updated,
                         {handlers::makeLogLine("DEBUG", "Calling read_resource", {}, "t")});
    changed.result.changes = {{"content", {{"current", "x"}, {"desired", "y"}}}};
    progress.onRun(std::move(changed));
    progress.onRun(runOf("std::File[h,path=/b]", "failed", handlers::Change::nochange,
                         {handlers::makeLogLine("INFO", "started", {}, "t"),
                          handlers::makeLogLine("ERROR", "Permission denied", {}, "t"),
                          handlers::makeLogLine("ERROR", "a later error", {}, "t")}));
    progress.onRun(runOf("std::File[h,path=/c]", "skipped", handlers::Change::nochange,
                         {handlers::makeLogLine("INFO", "Resource c skipped due to failed dependencies", {}, "t")}));
    auto stale = runOf("std::File[h,path=/d]", "deployed", handlers::Change::created);
    stale.stale = true;
    stale.result.changes = {{"purged", {{"current", true}, {"desired", false}}}};
    progress.onRun(std::move(stale));
    auto dry = runOf("std::File[h,path=/e]", "dry", handlers::Change::nochange);
    dry.dryRun = true;
    progress.onRun(std::move(dry));
  });
  worker.join();
  progress.flush();
  EXPECT_EQ(out.str(),
            "[1/4] std::File[h,path=/a] deployed (updated)\n"
            "[2/4] std::File[h,path=/b] failed (nochange)\n"
            "    Permission denied\n"
            "[3/4] std::File[h,path=/c] skipped (nochange)\n"
            "[4/4] std::File[h,path=/d] deployed (created)\n");

  auto results = progress.takeResults();
  ASSERT_EQ(results.size(), 3u);  // a stale run says nothing of the resource's last run
  EXPECT_EQ(results["std::File[h,path=/a]"].change, handlers::Change::updated);
  EXPECT_EQ(results["std::File[h,path=/a]"].changes["content"]["desired"], "y");
  EXPECT_EQ(results["std::File[h,path=/a]"].error, "");
  EXPECT_EQ(results["std::File[h,path=/b]"].error, "Permission denied");
  EXPECT_EQ(results["std::File[h,path=/c]"].error, "Resource c skipped due to failed dependencies");
  EXPECT_EQ(results.count("std::File[h,path=/d]"), 0u);
}

}  // namespace
}  // namespace inmanta::deploy
