#include "compiler/tuner/stop_signals.h"

#include <sys/wait.h>

#include <iterator>

namespace cortado {

namespace {

// A signal handler can only leave a mark where the tuner will look.
volatile std::sig_atomic_t stop_requested = 0;
void note_stop(int) { stop_requested = 1; }

static_assert(std::size(kStopSignals) == 3, "StopSignals keeps one previous action per signal");

}  // namespace

StopSignals::StopSignals() {
    stop_requested = 0;
    struct sigaction action {};
    action.sa_handler = note_stop;
    action.sa_flags = SA_RESTART;  // the waits that must notice it poll requested() themselves
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kStopSignals); i++) ::sigaction(kStopSignals[i], &action, &previous_[i]);
}

StopSignals::~StopSignals() {
    for (size_t i = 0; i < std::size(kStopSignals); i++) ::sigaction(kStopSignals[i], &previous_[i], nullptr);
}

bool StopSignals::requested() { return stop_requested != 0; }

void default_stop_signals() {
    for (int signal : kStopSignals) ::signal(signal, SIG_DFL);
}

bool ended_by_stop_signal(int status) {
    if (!WIFSIGNALED(status)) return false;
    for (int signal : kStopSignals)
        if (WTERMSIG(status) == signal) return true;
    return false;
}

}  // namespace cortado
