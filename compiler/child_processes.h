// Work that runs in child processes, a few at a time: libHalide compiles one pipeline per process
// at a time, and a child that dies (out of memory, a signal) takes nothing else with it. Used for
// a network's kernels (kernel_builder.h) and the tuner's candidates (compiler/tuner/local_runner.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace cortado {

// How a task's child process ended: its wait status, and the message of what the task threw
// ("" when it returned, or when the process died before it could say).
struct ChildOutcome {
    int status = 0;
    std::string error;

    bool succeeded() const;
};

// "killed by signal 9 (Killed)", "exited with status 1": a wait status in words.
std::string describe_wait_status(int status);

// Runs task(i) for every i below `count`, each in a child process of its own, at most `jobs` at
// once. fork() copies only the calling thread, so call it where no other thread of the process
// can hold a lock (an allocator's, under the sanitizers): before a network's thread pool or a
// peer library has worked here. Calls ended(i, outcome) here as each ends. When `ended` returns
// false no more tasks start; those running are waited for. With `stop`, it is asked every 50 ms:
// once true, no more tasks start and those running get SIGTERM. Throws CompileError if a child
// cannot be started or waited for.
void run_in_child_processes(size_t count, int jobs, const std::function<void(size_t)> &task,
                            const std::function<bool(size_t, const ChildOutcome &)> &ended,
                            const std::function<bool()> &stop = nullptr);

}  // namespace cortado
