#include "tuner/runners/runner.h"

#include "core/error.h"
#include "tuner/runners/local_runner.h"
#include "tuner/runners/ssh_runner.h"

namespace nee {

std::unique_ptr<Runner> make_runner(const std::string& url, const RunnerOptions& options, const SshSettings& ssh,
                                    const std::string& work_dir) {
  if (url.empty() || url == "local") return std::make_unique<LocalRunner>(options);
  if (url.rfind("ssh://", 0) == 0) return std::make_unique<SshRunner>(SshUrl::parse(url), ssh, options, work_dir);
  throw Error("unknown runner '" + url + "': use local or ssh://[user@]host[:port]");
}

}  // namespace nee
