#include "compiler/network_builder.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "compiler/emit_network.h"
#include "compiler/install_layout.h"
#include "compiler/kernel_builder.h"
#include "compiler/shell_quote.h"
#include "frontend/compile_error.h"
#include "runtime/file_bytes.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

// Runs a command; on failure throws with its output, which is what a user needs to see.
void run_command(const std::string &command, const std::string &what) {
    const std::string log = fs::temp_directory_path() / ("cortado-cmd-" + std::to_string(::getpid()) + ".log");
    const int status = std::system((command + " > " + shell_quote(log) + " 2>&1").c_str());
    std::string output, error;
    if (!read_file_bytes(log, &output, &error)) output = error;
    fs::remove(log);
    if (status != 0) throw CompileError(what + " failed:\n$ " + command + "\n" + output);
}

void write_file(const fs::path &path, const std::string &text) {
    std::ofstream file(path, std::ios::trunc);
    file << text;
    if (!file.flush()) throw CompileError(path.string() + ": cannot write");
}

}  // namespace

BuiltNetwork build_network(const Graph &graph, const std::string &name, const TargetDescription &target,
                           const std::string &out_dir, const BuildOptions &options) {
    if (!is_valid_network_name(name))
        throw CompileError("network name '" + name + "' must be a C identifier (letters, digits, underscores)");
    // Looked up first: a missing cross compiler fails before any kernel builds.
    const Toolchain toolchain = toolchain_for(target.halide_target);
    BuiltNetwork built{plan_network(graph, name, target.plan_target(), options.plan), "", "", toolchain};
    const NetworkPlan &plan = built.plan;
    fs::create_directories(out_dir);
    std::optional<NetworkPlan> single_image;
    std::vector<KernelInstance> kernels = plan.kernels;
    if (options.single_image && plan.tensors[plan.input_tensor].shape[0] > 1) {
        single_image = plan_network(*options.single_image, name, target.plan_target(), options.plan);
        Shape one = plan.tensors[plan.input_tensor].shape;
        one[0] = 1;
        if (single_image->tensors[single_image->input_tensor].shape != one)
            throw CompileError("the batch-1 network's input is " +
                               shape_to_string(single_image->tensors[single_image->input_tensor].shape) + ", not " +
                               shape_to_string(one));
        std::set<std::string> have;
        for (const KernelInstance &k : kernels) have.insert(k.signature());
        for (const KernelInstance &k : single_image->kernels)
            if (have.insert(k.signature()).second) kernels.push_back(k);
    }

    const bool show_progress = options.verbose && ::isatty(2);
    std::vector<std::string> objects =
        build_kernels_and_runtime(kernels, target.halide_target, options.jobs, [&](size_t done) {
            if (show_progress) std::cerr << "\rcortado: kernel " << done << "/" << kernels.size() << std::flush;
        });
    if (show_progress && !kernels.empty()) std::cerr << "\n";

    const fs::path dir(out_dir);
    built.header = (dir / (name + ".h")).string();
    write_file(built.header, emit_header(plan, !options.embedded_weights.empty()));
    const fs::path glue = dir / (name + "_glue.cc");
    write_file(glue, emit_glue(plan, options.embedded_weights, single_image ? &*single_image : nullptr));
    const fs::path glue_object = dir / (name + "_glue.o");
    run_command(toolchain.cxx + " -std=c++17 -O2 -fPIC -I" + shell_quote(data_dir()) + " -I" + shell_quote(out_dir) +
                    " -c " + shell_quote(glue.string()) + " -o " + shell_quote(glue_object.string()),
                "compiling " + glue.string());
    objects.insert(objects.begin(), glue_object.string());

    built.library = (dir / ("lib" + name + ".a")).string();
    fs::remove(built.library);
    std::string script = "create " + built.library + "\n";
    for (const std::string &object : objects) script += "addmod " + object + "\n";
    script += "addlib " + build_cortado_runtime(toolchain) + "\nsave\nend\n";
    const fs::path script_path = dir / (name + ".mri");
    write_file(script_path, script);
    run_command(toolchain.ar + " -M < " + shell_quote(script_path.string()), "archiving " + built.library);
    fs::remove(script_path);
    fs::remove(glue_object);
    return built;
}

std::string link_shared_library(const BuiltNetwork &network, const std::string &out_dir) {
    const std::string so = (fs::path(out_dir) / ("lib" + network.plan.name + ".so")).string();
    run_command(network.toolchain.cxx + " -shared -o " + shell_quote(so) + " -Wl,--whole-archive " +
                    shell_quote(network.library) + " -Wl,--no-whole-archive -lpthread -ldl",
                "linking " + so);
    return so;
}

std::string link_kernel_library(const KernelInstance &kernel, const std::string &out_dir) {
    const Toolchain toolchain = toolchain_for(kernel.target);
    const std::string so = (fs::path(out_dir) / (kernel.function_name() + ".so")).string();
    run_command(toolchain.cxx + " -shared -o " + shell_quote(so) + " " + shell_quote(build_kernel(kernel)) + " " +
                    shell_quote(build_halide_runtime(kernel.target)) + " -lpthread -ldl",
                "linking " + so);
    return so;
}

}  // namespace cortado
