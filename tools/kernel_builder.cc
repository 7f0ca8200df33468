#include "tools/kernel_builder.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "Halide.h"
#include "frontend/compile_error.h"
#include "frontend/content_hash.h"

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

// Builds into a private directory, then renames it into place, so concurrent compilers
// sharing the cache never see half-written objects.
template <typename Build>
std::string cached(const std::string &name, const std::string &key, Build build) {
    const fs::path dir = fs::path(kernel_cache_dir()) / (name + "-" + content_hash_hex(key + compiler_identity()));
    const fs::path object = dir / (name + ".o");
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

}  // namespace

std::string kernel_cache_dir() {
    if (const char *dir = std::getenv("CORTADO_CACHE")) return dir;
    const char *home = std::getenv("HOME");
    return std::string(home ? home : "/tmp") + "/.cache/cortado";
}

std::string resolve_target(const std::string &name) {
    std::string halide = name;
    const fs::path description = fs::path(CORTADO_SOURCE_DIR) / "targets" / (name + ".target");
    if (name == "host") {
        halide = Halide::get_host_target().to_string();
    } else if (name.find('/') == std::string::npos && fs::exists(description)) {
        std::ifstream file(description);
        halide.clear();
        for (std::string line; std::getline(file, line);) {
            const size_t eq = line.find('=');
            if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
            auto trim = [](std::string s) {
                s.erase(0, s.find_first_not_of(" \t"));
                s.erase(s.find_last_not_of(" \t\r") + 1);
                return s;
            };
            if (trim(line.substr(0, eq)) == "halide_target") halide = trim(line.substr(eq + 1));
        }
        if (halide.empty()) throw CompileError(description.string() + ": no halide_target line");
    }
    if (!Halide::Target::validate_target_string(halide))
        throw CompileError("unknown target '" + name + "': give host, a name from " +
                           (fs::path(CORTADO_SOURCE_DIR) / "targets").string() +
                           " or a Halide target string");
    return Halide::Target(halide).to_string();
}

std::string build_kernel(const KernelInstance &kernel) {
    const std::string name = kernel.function_name();
    return cached(name, kernel.signature(), [&](const std::string &dir) {
        Halide::Internal::ExecuteGeneratorArgs args;
        args.output_dir = dir;
        args.output_types = {Halide::OutputFileType::object};
        args.targets = {Halide::Target(kernel.target).with_feature(Halide::Target::NoRuntime)};
        args.generator_name = kernel.generator;
        args.function_name = name;
        args.file_base_name = name;
        args.create_generator = [](const std::string &generator, const Halide::GeneratorContext &context) {
            return Halide::Internal::GeneratorRegistry::create(generator, context);
        };
        for (const auto &[key, value] : kernel.params) args.generator_params[key] = value;
        try {
            Halide::Internal::execute_generator(args);
        } catch (const Halide::Error &e) {
            throw CompileError("Halide failed on kernel " + kernel.signature() + ": " + e.what());
        }
    });
}

std::string build_halide_runtime(const std::string &target) {
    const std::string name = "halide_runtime";
    return cached(name, target, [&](const std::string &dir) {
        Halide::compile_standalone_runtime(dir + "/" + name + ".o", Halide::Target(target));
    });
}

}  // namespace cortado
