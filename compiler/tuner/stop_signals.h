// Ctrl-C, a kill and a closed terminal (SIGINT, SIGTERM, SIGHUP) stop the tuner cleanly: while a
// StopSignals lives they are noted rather than obeyed, the tuner sees requested() and ends its
// child processes itself, and every record written so far stays. Its children take the default
// action again (default_stop_signals), so that a terminal's Ctrl-C ends them at once.
#pragma once

#include <csignal>

namespace cortado {

inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

class StopSignals {
  public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

    // Whether one of the signals arrived while a StopSignals lived.
    static bool requested();

  private:
    struct sigaction previous_[3] {};
};

// In a child process: the stop signals take their default action again.
void default_stop_signals();

// Whether a child's wait status says a stop signal ended it (the user stopped the tuner, not
// anything the child did).
bool ended_by_stop_signal(int status);

}  // namespace cortado
