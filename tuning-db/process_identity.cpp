#include "tuning-db/process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace nee::db {

namespace {

// Field 22 of /proc/<pid>/stat, starttime; 0 if the process is gone (a zombie, killed
// and not yet reaped, counts as gone) or there is no /proc.
int64_t start_ticks_of(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  // Field 2, the command name, is in parentheses and may hold spaces and ')': fields
  // 3 onwards follow the last ')'.
  const size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int number = 3; number <= 22 && fields >> field; ++number) {
    if (number == 3 && (field == "Z" || field == "X")) return 0;
    if (number == 22) return std::stoll(field);
  }
  return 0;
}

}  // namespace

ProcessIdentity ProcessIdentity::of_this_process() {
  ProcessIdentity me;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) me.host = host;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, me.boot_id);
  me.pid = getpid();
  me.start_ticks = start_ticks_of(me.pid);
  return me;
}

bool ProcessIdentity::running_here(int64_t pid, int64_t start_ticks) {
  if (pid <= 0) return false;
  // EPERM: the process exists but belongs to another user.
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  return start_ticks == 0 || start_ticks_of(pid) == start_ticks;
}

}  // namespace nee::db
