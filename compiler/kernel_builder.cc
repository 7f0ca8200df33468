#include "compiler/kernel_builder.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "Halide.h"
#include "compiler/child_processes.h"
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

// Generated code depends on the compiler that made it: key the cache on this binary too. Read
// once: every cache lookup needs it.
const std::string &compiler_identity() {
    static const std::string identity = [] {
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        if (ec) return std::string("unknown");
        const auto size = fs::file_size(self, ec);
        const auto time = fs::last_write_time(self, ec).time_since_epoch().count();
        return std::to_string(size) + "-" + std::to_string(time);
    }();
    return identity;
}

const char *const kHalideRuntime = "halide_runtime";

// strict_float changes only the kernels' float math; Halide 21 cannot build its runtime with it
// (an internal error in CodeGen_LLVM::set_fast_fp_math).
Halide::Target halide_runtime_target(const std::string &target) {
    return Halide::Target(target).without_feature(Halide::Target::StrictFloat);
}

// The DSP side of an HVX offload target (arm-64-linux-hvx-hvx_v68 runs its kernels on
// hexagon-32-noos-hvx-hvx_v68): its assembly is what shows the vector instructions.
Halide::Target hexagon_dsp_target(const Halide::Target &offload) {
    Halide::Target dsp(Halide::Target::NoOS, Halide::Target::Hexagon, 32);
    for (const auto feature : {Halide::Target::HVX_128, Halide::Target::HVX_v62, Halide::Target::HVX_v65,
                               Halide::Target::HVX_v66, Halide::Target::HVX_v68})
        if (offload.has_feature(feature)) dsp = dsp.with_feature(feature);
    return dsp.with_feature(Halide::Target::NoRuntime);
}

// The offload object holds the DSP code as a linked image; compiling the kernel again for the
// DSP alone shows its instructions. Halide's direct Hexagon compile fails on some kernels its
// offload compiles (LLVM aborts selecting a NaN compare of float vectors), so it runs in a child
// process of its own, and a failure leaves its reason in the file instead.
void write_dsp_assembly(const Halide::Internal::ExecuteGeneratorArgs &offload, const Halide::Target &target,
                        const fs::path &path) {
    Halide::Internal::ExecuteGeneratorArgs dsp = offload;
    dsp.output_types = {Halide::OutputFileType::assembly};
    dsp.targets = {hexagon_dsp_target(target)};
    dsp.file_base_name = path.stem().string();
    run_in_child_processes(
        1, 1, [&](size_t) { Halide::Internal::execute_generator(dsp); },
        [&](size_t, const ChildOutcome &outcome) {
            if (!outcome.succeeded())
                std::ofstream(path) << "// no DSP assembly: " << dsp.targets[0].to_string() << " failed, "
                                    << (outcome.error.empty() ? describe_wait_status(outcome.status) : outcome.error)
                                    << "\n";
            return true;
        });
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
        if (host_settings().write_assembly) args.output_types.insert(Halide::OutputFileType::assembly);
        const Halide::Target target = Halide::Target(kernel.target).with_feature(Halide::Target::NoRuntime);
        args.targets = {target};
        args.generator_name = kernel.generator();
        args.function_name = name;
        args.file_base_name = name;
        args.create_generator = [](const std::string &generator, const Halide::GeneratorContext &context) {
            return Halide::Internal::GeneratorRegistry::create(generator, context);
        };
        for (const auto &[key, value] : kernel.generator_params()) args.generator_params[key] = value;
        try {
            Halide::Internal::execute_generator(args);
            if (host_settings().write_assembly && target.arch != Halide::Target::Hexagon &&
                target.has_feature(Halide::Target::HVX))
                write_dsp_assembly(args, target, dir + "/" + name + ".hexagon.s");
        } catch (const Halide::Error &e) {
            throw CompileError("Halide failed on kernel " + kernel.signature() + ": " + e.what());
        } catch (const std::exception &e) {
            throw CompileError("generator " + kernel.generator() + " failed on kernel " + kernel.signature() + ": " +
                               e.what());
        }
    });
}

std::vector<std::string> build_kernels_and_runtime(const std::vector<KernelInstance> &kernels,
                                                   const std::string &runtime_target, int jobs,
                                                   const std::function<void(size_t)> &progress) {
    // Each object where the cache keeps it, and how to build it there: the kernels, then the runtime.
    struct Build {
        fs::path object;
        std::function<void()> build;
    };
    std::vector<Build> builds;
    for (const KernelInstance &kernel : kernels)
        builds.push_back(
            {cache_entry(kernel.function_name(), kernel.signature(), ""), [&kernel] { build_kernel(kernel); }});
    builds.push_back({cache_entry(kHalideRuntime, halide_runtime_target(runtime_target).to_string(), ""),
                      [&runtime_target] { build_halide_runtime(runtime_target); }});
    std::vector<size_t> missing;
    for (size_t i = 0; i < builds.size(); i++)
        if (!fs::exists(builds[i].object)) missing.push_back(i);
    size_t kernels_done = kernels.size();
    for (size_t i : missing) kernels_done -= i < kernels.size();
    if (progress) progress(kernels_done);
    const auto built = [&](size_t i) {
        if (i < kernels.size() && progress) progress(++kernels_done);
    };
    if (jobs <= 1 || missing.size() <= 1) {
        for (size_t i : missing) {
            builds[i].build();
            built(i);
        }
    } else {
        // Each child starts from the same state, so an object does not depend on which kernels
        // were compiled before it.
        std::map<size_t, std::string> failures;  // by build, so the first in order is reported
        run_in_child_processes(
            missing.size(), jobs, [&](size_t j) { builds[missing[j]].build(); },
            [&](size_t j, const ChildOutcome &outcome) {
                const size_t i = missing[j];
                if (outcome.succeeded()) {
                    built(i);
                } else {
                    failures[i] = !outcome.error.empty()
                                      ? outcome.error
                                      : "the process building " + builds[i].object.filename().string() + " " +
                                            describe_wait_status(outcome.status);
                }
                return failures.empty();
            });
        if (!failures.empty()) throw CompileError(failures.begin()->second);
    }
    std::vector<std::string> objects;
    for (const Build &b : builds) objects.push_back(b.object.string());
    return objects;
}

std::string build_halide_runtime(const std::string &target) {
    const Halide::Target runtime_target = halide_runtime_target(target);
    return cached(kHalideRuntime, runtime_target.to_string(), [&](const std::string &dir) {
        Halide::compile_standalone_runtime(dir + "/" + kHalideRuntime + ".o", runtime_target);
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
