#pragma once

namespace nee {

// Ctrl-C handling for long tuning runs: the first SIGINT asks the loop to stop after the
// candidate in flight (everything measured is already committed); a second one exits.
void install_interrupt_handler();
bool interrupted();

}  // namespace nee
