#include "tuner/scheduling/interrupt.h"

#include <csignal>
#include <unistd.h>

namespace nee {

static volatile sig_atomic_t g_interrupts = 0;

static void on_sigint(int) {
  g_interrupts = g_interrupts + 1;
  if (g_interrupts > 1) _exit(130);
  const char msg[] = "\nnee-tune: stopping after the candidate in flight (Ctrl-C again to quit now)\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
}

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

bool interrupted() { return g_interrupts > 0; }

}  // namespace nee
