#include "compiler/kernel_builder.h"

#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>

#include "Halide.h"
#include "compiler/host_settings.h"
#include "compiler/install_layout.h"
#include "compiler/shell_quote.h"
#include "compiler/toolchain.h"
#include "frontend/compile_error.h"
#include "frontend/content_hash.h"
#include "runtime/file_bytes.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

// Generated code depends on the compiler that made it: key the cache on this binary too.
std::string compiler_identity() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "unknown";
    const auto size = fs::file_size(self, ec);
    const auto time = fs::last_write_time(self, ec).time_since_epoch().count();
    return std::to_string(size) + "-" + std::to_string(time);
}

fs::path cache_entry(const std::string &name, const std::string &key, const std::string &product) {
    const fs::path dir = fs::path(kernel_cache_dir()) / (name + "-" + content_hash_hex(key + compiler_identity()));
    return dir / (product.empty() ? name + ".o" : product);
}

// Builds into a private directory, then renames it into place, so concurrent compilers
// sharing the cache never see half-written objects.
template <typename Build>
std::string cached(const std::string &name, const std::string &key, Build build, const std::string &product = "") {
    const fs::path object = cache_entry(name, key, product);
    const fs::path dir = object.parent_path();
    if (fs::exists(object)) return object.string();
    fs::create_directories(dir.parent_path());
    const fs::path scratch = dir.string() + ".tmp" + std::to_string(::getpid());
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    build(scratch.string());
    std::ofstream(scratch / "signature.txt") << key << "\n";
    std::error_code ec;
    fs::rename(scratch, dir, ec);
    if (ec) fs::remove_all(scratch);  // another process won the race; its copy is identical
    if (!fs::exists(object)) throw CompileError("kernel cache: " + object.string() + " missing after build");
    return object.string();
}

std::string read_file(const fs::path &path) {
    std::string bytes, error;
    if (!read_file_bytes(path.string(), &bytes, &error)) throw CompileError(error);
    return bytes;
}

void run_or_throw(const std::string &command, const std::string &what) {
    if (std::system(command.c_str()) != 0) throw CompileError(what + " failed: " + command);
}

}  // namespace

std::string kernel_cache_dir() {
    if (!host_settings().kernel_cache_dir.empty()) return host_settings().kernel_cache_dir;
    const passwd *user = ::getpwuid(::getuid());
    return std::string(user && user->pw_dir ? user->pw_dir : "/tmp") + "/.cache/cortado";
}

std::string build_kernel(const KernelInstance &kernel) {
    const std::string name = kernel.function_name();
    return cached(name, kernel.signature(), [&](const std::string &dir) {
        Halide::Internal::ExecuteGeneratorArgs args;
        args.output_dir = dir;
        args.output_types = {Halide::OutputFileType::object};
        if (host_settings().write_stmt) args.output_types.insert(Halide::OutputFileType::stmt);
        args.targets = {Halide::Target(kernel.target).with_feature(Halide::Target::NoRuntime)};
        args.generator_name = kernel.generator();
        args.function_name = name;
        args.file_base_name = name;
        args.create_generator = [](const std::string &generator, const Halide::GeneratorContext &context) {
            return Halide::Internal::GeneratorRegistry::create(generator, context);
        };
        for (const auto &[key, value] : kernel.generator_params()) args.generator_params[key] = value;
        try {
            Halide::Internal::execute_generator(args);
        } catch (const Halide::Error &e) {
            throw CompileError("Halide failed on kernel " + kernel.signature() + ": " + e.what());
        } catch (const std::exception &e) {
            throw CompileError("generator " + kernel.generator() + " failed on kernel " + kernel.signature() + ": " +
                               e.what());
        }
    });
}

std::vector<std::string> build_kernels(const std::vector<KernelInstance> &kernels, int jobs,
                                       const std::function<void(size_t)> &progress) {
    std::vector<std::string> objects(kernels.size());
    std::vector<size_t> missing;
    for (size_t k = 0; k < kernels.size(); k++) {
        const fs::path object = cache_entry(kernels[k].function_name(), kernels[k].signature(), "");
        if (fs::exists(object)) objects[k] = object.string();
        else missing.push_back(k);
    }
    size_t done = kernels.size() - missing.size();
    if (progress) progress(done);
    if (jobs <= 1 || missing.size() <= 1) {
        for (size_t k : missing) {
            objects[k] = build_kernel(kernels[k]);
            if (progress) progress(++done);
        }
        return objects;
    }
    // One process per kernel, `jobs` at a time: libHalide compiles one pipeline per process at a
    // time, and each child starts from the same state, so its object does not depend on which
    // kernels were compiled before it. A child reports its error in a file of its own.
    const fs::path errors = fs::temp_directory_path() / ("cortado-kernels-" + std::to_string(::getpid()));
    fs::create_directories(errors);
    std::map<pid_t, size_t> running;
    std::map<size_t, std::string> failures;
    size_t next = 0;
    const auto wait_one = [&] {
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {}
        if (pid < 0) throw CompileError("lost track of the kernel compiler processes");
        const auto it = running.find(pid);
        if (it == running.end()) return;
        const size_t k = it->second;
        running.erase(it);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            objects[k] = cache_entry(kernels[k].function_name(), kernels[k].signature(), "").string();
            if (progress) progress(++done);
            return;
        }
        std::string message, ignored;
        if (!read_file_bytes((errors / std::to_string(k)).string(), &message, &ignored) || message.empty())
            message = "the process compiling kernel " + kernels[k].signature() +
                      (WIFSIGNALED(status) ? " was killed by signal " + std::to_string(WTERMSIG(status))
                                           : " exited with status " + std::to_string(WEXITSTATUS(status)));
        failures[k] = message;
    };
    while (next < missing.size() || !running.empty()) {
        if (next < missing.size() && int(running.size()) < jobs && failures.empty()) {
            const size_t k = missing[next++];
            std::cout.flush();
            std::cerr.flush();
            const pid_t pid = ::fork();
            if (pid < 0)
                throw CompileError("cannot start a kernel compiler process: " + std::string(std::strerror(errno)));
            if (pid == 0) {
                int code = 0;
                try {
                    build_kernel(kernels[k]);
                } catch (const std::exception &e) {
                    std::ofstream(errors / std::to_string(k)) << e.what();
                    code = 1;
                }
                ::_exit(code);
            }
            running[pid] = k;
            continue;
        }
        if (running.empty()) break;  // a failure stopped new starts, and the rest have ended
        wait_one();
    }
    fs::remove_all(errors);
    if (!failures.empty()) throw CompileError(failures.begin()->second);
    return objects;
}

std::string build_halide_runtime(const std::string &target) {
    const std::string name = "halide_runtime";
    // strict_float changes only the kernels' float math; Halide 21 cannot build its runtime with
    // it (an internal error in CodeGen_LLVM::set_fast_fp_math).
    const Halide::Target runtime_target = Halide::Target(target).without_feature(Halide::Target::StrictFloat);
    return cached(name, runtime_target.to_string(), [&](const std::string &dir) {
        Halide::compile_standalone_runtime(dir + "/" + name + ".o", runtime_target);
    });
}

std::string build_cortado_runtime(const Toolchain &toolchain) {
    if (!toolchain.cross) return runtime_library();
    // Cross targets: compile runtime/*.cc with the target's compiler, keyed on the sources, the
    // op headers they include (the Winograd weight transform) and the flags. GNU unique symbols
    // would keep a network library loaded after dlclose, so a new one at the same path could not
    // replace it: the runtime is built without them, as CMakeLists.txt builds the host's.
    std::vector<fs::path> files;  // headers too: they change what the sources compile to
    for (const char *folder : {"runtime", "ops"})
        for (const auto &entry : fs::directory_iterator(fs::path(data_dir()) / folder)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    const std::string flags = "-std=c++17 -O2 -fPIC -fno-gnu-unique";
    std::string key = "cortado_runtime " + toolchain.cxx + " " + flags;
    for (const fs::path &file : files)
        key += "\n" + fs::relative(file, data_dir()).string() + " " + content_hash_hex(read_file(file));
    const std::string library = "libcortado_runtime.a";
    return cached(
        "cortado_runtime", key,
        [&](const std::string &dir) {
            std::string objects;
            for (const fs::path &file : files) {
                if (file.extension() != ".cc") continue;
                const std::string object = dir + "/" + file.stem().string() + ".o";
                run_or_throw(toolchain.cxx + " " + flags + " -I" + shell_quote(data_dir()) + " -I" +
                                 shell_quote(halide_include_dir()) + " -c " + shell_quote(file.string()) + " -o " +
                                 shell_quote(object),
                             "compiling the cortado runtime with " + toolchain.cxx);
                objects += " " + shell_quote(object);
            }
            run_or_throw(toolchain.ar + " rcs " + shell_quote(dir + "/" + library) + objects,
                         "archiving the cortado runtime");
        },
        library);
}

}  // namespace cortado
