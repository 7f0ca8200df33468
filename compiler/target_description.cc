#include "compiler/target_description.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include "Halide.h"
#include "compiler/host_machine_model.h"
#include "compiler/install_layout.h"
#include "frontend/compile_error.h"
#include "frontend/nearest_word.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t\r") + 1);
    return s;
}

double positive_number(const std::map<std::string, std::string> &keys, const std::string &key,
                       const std::string &file) {
    const auto it = keys.find(key);
    if (it == keys.end()) return 0;
    try {
        size_t used = 0;
        const double value = std::stod(it->second, &used);
        if (used == it->second.size() && value > 0) return value;
    } catch (const std::exception &) {}
    throw CompileError(file + ": " + key + " must be a positive number, not '" + it->second + "'");
}

// A whole number in [least, most]: the key's value, or 0 where the description lacks it.
int whole_number(const std::map<std::string, std::string> &keys, const std::string &key, const std::string &file,
                 int least, int most) {
    if (!keys.count(key)) return 0;
    const double value = positive_number(keys, key, file);
    if (value != int(value) || value < least || value > most)
        throw CompileError(file + ": " + key + " must be a whole number from " + std::to_string(least) + " to " +
                           std::to_string(most) + ", not '" + keys.at(key) + "'");
    return int(value);
}

// The threads the runtime's pool starts on this machine (runtime/parallel_for.cc): HL_NUM_THREADS
// where set, else one a hardware thread.
int host_cores() {
    const char *n = std::getenv("HL_NUM_THREADS");
    const int threads = n ? std::atoi(n) : 0;
    return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

// The instruction set's model (this machine's, for a description of `host`) with the
// description's figures over it.
schedules::MachineModel description_machine_model(const std::map<std::string, std::string> &keys,
                                                  const std::string &halide_target, const std::string &file) {
    const std::string canonical = Halide::Target(halide_target).to_string();
    schedules::MachineModel model = halide_target.rfind("host", 0) == 0
                                        ? host_machine_model(canonical)
                                        : schedules::instruction_set_machine_model(canonical);
    const std::pair<const char *, int *> figures[] = {
        {"vector_registers", &model.vector_registers}, {"fma_units", &model.fma_units},
        {"fma_latency", &model.fma_latency},           {"l1d_kib", &model.l1d_kib},
        {"l2_kib", &model.l2_kib},                     {"l3_kib", &model.l3_kib}};
    bool stated = false;
    for (const auto &[key, figure] : figures) {
        // 2^20: a GiB of cache in KiB, far past any CPU's figure and short of overflowing the rules' sums.
        if (const int value = whole_number(keys, key, file, 1, 1 << 20)) *figure = value, stated = true;
    }
    // The smallest register tile, one accumulator with its loads, needs a few; every SIMD ISA has 8.
    if (model.vector_registers < 8)
        throw CompileError(file + ": vector_registers must be at least 8, not " + std::to_string(model.vector_registers));
    if (stated && Halide::Target(halide_target).has_gpu_feature())
        throw CompileError(file + ": the machine-model keys (vector_registers, fma_units, fma_latency, l1d_kib, "
                                  "l2_kib, l3_kib) describe CPUs; " + halide_target + " is a GPU target");
    if (stated) model.source = "description";
    return model;
}

}  // namespace

PlanTarget TargetDescription::plan_target() const {
    PlanTarget plan(halide_target);
    plan.family = schedule_family;
    plan.vector_bits = vector_bits;
    plan.registers_per_thread = registers_per_thread;
    plan.cores = cores;
    plan.machine = machine;
    plan.knobs = knobs;
    plan.opencl_build_options = opencl_build_options;
    return plan;
}

std::vector<std::string> target_description_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(fs::path(data_dir()) / "targets", ec))
        if (entry.path().extension() == ".target") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

TargetDescription resolve_target(const std::string &name) {
    TargetDescription target;
    target.name = name;
    target.halide_target = name;  // unless a description says otherwise
    // A path to a description of one's own (bringing up a device without editing targets/), or
    // a name from targets/.
    const bool is_path = name.size() > 7 && name.compare(name.size() - 7, 7, ".target") == 0;
    const fs::path file = is_path ? fs::path(name) : fs::path(data_dir()) / "targets" / (name + ".target");
    if (is_path && !fs::exists(file)) throw CompileError(name + ": no such target description");
    if (name == "host") {
        target.halide_target = Halide::get_host_target().to_string();
        target.cores = host_cores();
        target.machine = host_machine_model(target.halide_target);
    } else if (is_path || (name.find('/') == std::string::npos && fs::exists(file))) {
        std::ifstream in(file);
        std::map<std::string, std::string> keys;
        int line_number = 0;
        for (std::string line; std::getline(in, line);) {
            line_number++;
            line = trim(line.substr(0, line.find('#')));
            if (line.empty()) continue;
            const size_t eq = line.find('=');
            if (eq == std::string::npos)
                throw CompileError(file.string() + ":" + std::to_string(line_number) + ": expected key = value");
            const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
            const std::string where = file.string() + ":" + std::to_string(line_number) + ": ";
            static const char *known[] = {
                "halide_target", "schedule_family", "vector_bits",          "knob",
                "peak_gflops",   "bandwidth_gbs",   "registers_per_thread", "opencl_build_options",
                "cores",         "vector_registers", "fma_units",           "fma_latency",
                "l1d_kib",       "l2_kib",          "l3_kib"};
            if (std::find(std::begin(known), std::end(known), key) == std::end(known))
                throw CompileError(where + "unknown key '" + key + "' (see targets/README.md)");
            // `knob` lines accumulate into the table; other keys appear once.
            if (key == "knob") keys[key] += (keys[key].empty() ? "" : ",") + value;
            else if (!keys.emplace(key, value).second) throw CompileError(where + key + " given twice");
        }
        if (keys["halide_target"].empty()) throw CompileError(file.string() + ": no halide_target line");
        target.halide_target = keys["halide_target"];
        target.file = file.string();
        if (!Halide::Target::validate_target_string(target.halide_target))
            throw CompileError(file.string() + ": invalid halide_target '" + target.halide_target + "'");
        target.knobs = keys["knob"];
        // 255 is the most a CUDA thread can address; 16 the least a kernel compiles with.
        target.registers_per_thread = whole_number(keys, "registers_per_thread", file.string(), 16, 255);
        if (keys.count("opencl_build_options")) {
            const std::string &options = keys["opencl_build_options"];
            if (!Halide::Target(target.halide_target).has_feature(Halide::Target::OpenCL))
                throw CompileError(file.string() + ": opencl_build_options needs an OpenCL halide_target");
            if (options.empty()) throw CompileError(file.string() + ": opencl_build_options is empty");
            target.opencl_build_options = options;
        }
        target.schedule_family = keys["schedule_family"];
        if (keys.count("vector_bits")) {
            const double bits = positive_number(keys, "vector_bits", file.string());
            // 2048 bits: 64 floats, the most any partial-sum knob takes.
            if (bits > 2048 || bits != int(bits) || int(bits) % 32 != 0)
                throw CompileError(file.string() + ": vector_bits must be a multiple of 32 up to 2048, not '" +
                                   keys["vector_bits"] + "'");
            target.vector_bits = int(bits);
        }
        target.cores = whole_number(keys, "cores", file.string(), 1, 4096);
        target.machine = description_machine_model(keys, target.halide_target, file.string());
        target.peak_gflops = positive_number(keys, "peak_gflops", file.string());
        target.bandwidth_gbs = positive_number(keys, "bandwidth_gbs", file.string());
    }
    if (!Halide::Target::validate_target_string(target.halide_target)) {
        const std::vector<std::string> names = target_description_names();
        const std::string near = nearest_word(name, names);
        std::string list;
        for (const std::string &n : names) list += ", " + n;
        throw UnknownTarget("unknown target '" + name + "'" + (near.empty() ? "" : " (did you mean " + near + "?)") +
                            ": give host" + list +
                            " (cortado targets), a path to a .target file, or a Halide target string");
    }
    const Halide::Target halide(target.halide_target);
    target.halide_target = halide.to_string();
    if (target.file.empty() && name != "host")
        target.machine = schedules::instruction_set_machine_model(target.halide_target);
    if (target.vector_bits == 0) target.vector_bits = 32 * halide.natural_vector_size<float>();
    try {
        target.schedule_family = resolve_plan_target(target.plan_target()).family;
    } catch (const CompileError &e) {
        throw CompileError((target.file.empty() ? name : target.file) + ": " + e.what());
    }
    return target;
}

}  // namespace cortado
