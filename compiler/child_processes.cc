#include "compiler/child_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "frontend/compile_error.h"
#include "runtime/file_bytes.h"

namespace cortado {
namespace fs = std::filesystem;

std::string describe_wait_status(int status) {
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

bool ChildOutcome::succeeded() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

void run_in_child_processes(size_t count, int jobs, const std::function<void(size_t)> &task,
                            const std::function<bool(size_t, const ChildOutcome &)> &ended,
                            const std::function<bool()> &stop) {
    // Each child writes what its task threw into a file of its own here.
    const fs::path messages = fs::temp_directory_path() / ("cortado-children-" + std::to_string(::getpid()));
    fs::create_directories(messages);
    std::map<pid_t, size_t> running;
    size_t next = 0;
    bool starting = true, stopping = false;
    try {
        while ((starting && next < count) || !running.empty()) {
            if (starting && next < count && int(running.size()) < std::max(1, jobs)) {
                const size_t i = next++;
                std::cout.flush();
                std::cerr.flush();
                const pid_t pid = ::fork();
                if (pid < 0) throw CompileError("cannot start a child process: " + std::string(std::strerror(errno)));
                if (pid == 0) {
                    int code = 0;
                    try {
                        task(i);
                    } catch (const std::exception &e) {
                        std::ofstream(messages / std::to_string(i)) << e.what();
                        code = 1;
                    }
                    ::_exit(code);
                }
                running[pid] = i;
                continue;
            }
            ChildOutcome outcome;
            pid_t pid;
            if (!stop) {
                while ((pid = ::waitpid(-1, &outcome.status, 0)) < 0 && errno == EINTR) {}
            } else {
                while ((pid = ::waitpid(-1, &outcome.status, WNOHANG)) == 0 || (pid < 0 && errno == EINTR)) {
                    if (!stopping && stop()) {
                        stopping = true;
                        starting = false;
                        for (const auto &child : running) ::kill(child.first, SIGTERM);
                    }
                    ::usleep(50 * 1000);
                }
            }
            if (pid < 0) throw CompileError("lost track of the child processes (is SIGCHLD ignored?)");
            const auto it = running.find(pid);
            if (it == running.end()) continue;
            const size_t i = it->second;
            running.erase(it);
            std::string ignored;
            if (!read_file_bytes((messages / std::to_string(i)).string(), &outcome.error, &ignored))
                outcome.error.clear();
            starting = ended(i, outcome) && starting;
        }
    } catch (...) {
        fs::remove_all(messages);
        throw;
    }
    fs::remove_all(messages);
}

}  // namespace cortado
