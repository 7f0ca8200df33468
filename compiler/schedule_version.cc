#include "compiler/schedule_version.h"

#include <algorithm>
#include <map>
#include <set>

#include "frontend/compile_error.h"
#include "frontend/content_hash.h"

namespace cortado {

namespace {

struct SourceFile {
    const char *path;
    const char *hash;
    std::vector<const char *> includes;
};

const std::vector<SourceFile> &source_files() {
    static const std::vector<SourceFile> files = {
#include "schedule_sources.inc"
    };
    return files;
}

// Where each variant's code starts: its schedule headers and the space file with its knobs and
// constraints. The includes of these are followed, so shared helpers and the algorithm count.
const std::map<std::string, std::vector<std::string>> &variant_roots() {
    static const std::map<std::string, std::vector<std::string>> roots = [] {
        std::map<std::string, std::vector<std::string>> r;
        const std::vector<std::string> cpu_gemm = {"schedules/cpu/gemm.h", "schedules/cpu/gemm_space.h"};
        const std::vector<std::string> gpu_gemm = {"schedules/gpu/gemm.h", "schedules/gpu/gemm_space.h"};
        r["conv2d cpu_register_tile"] = {"schedules/cpu/conv2d_register_tile.h", "schedules/cpu/conv2d_space.h"};
        r["conv2d test_wrong_without_bias"] = r["conv2d cpu_register_tile"];
        r["conv2d cpu_direct_channel_lanes"] = {"schedules/cpu/conv2d_channel_lanes.h",
                                                "schedules/cpu/conv2d_channel_lanes_space.h"};
        r["conv2d cpu_depthwise"] = {"schedules/cpu/conv2d_depthwise.h", "schedules/cpu/conv2d_depthwise_space.h"};
        for (const char *v : {"cpu_winograd_f2", "cpu_winograd_f4", "cpu_winograd_f2_5x5"})
            r[std::string("conv2d ") + v] = {"schedules/cpu/conv2d_winograd.h",
                                             "schedules/cpu/conv2d_winograd_space.h"};
        for (const char *v : {"cpu_gemm_fully_connected", "cpu_gemm_1x1", "cpu_gemm_1x1_channel_lanes"})
            r[std::string("conv2d ") + v] = cpu_gemm;
        for (const char *v : {"gpu_register_tile", "gpu_staged"})
            r[std::string("conv2d ") + v] = {"schedules/gpu/conv2d.h", "schedules/gpu/conv2d_staged_tile.h",
                                             "schedules/gpu/limits.h"};
        r["conv2d gpu_direct_channel_lanes"] = {"schedules/gpu/conv2d_channel_lanes.h",
                                                "schedules/gpu/conv2d_channel_lanes_space.h"};
        r["conv2d gpu_depthwise"] = {"schedules/gpu/conv2d_depthwise.h", "schedules/gpu/conv2d_depthwise_space.h"};
        for (const char *v : {"gpu_winograd_f2", "gpu_winograd_f4"})
            r[std::string("conv2d ") + v] = {"schedules/gpu/conv2d_winograd.h",
                                             "schedules/gpu/conv2d_winograd_space.h"};
        for (const char *v : {"gpu_gemm_fully_connected", "gpu_skinny_gemm_fully_connected", "gpu_gemm_1x1",
                              "gpu_gemm_1x1_channel_lanes"})
            r[std::string("conv2d ") + v] = gpu_gemm;
        r["conv2d hvx_register_tile"] = {"schedules/hvx/conv2d.h"};
        r["inner_product cpu_lane_partials"] = {"schedules/cpu/inner_product.h", "schedules/cpu/space.h"};
        r["inner_product cpu_gemm"] = cpu_gemm;
        r["inner_product gpu_block_partials"] = {"schedules/gpu/inner_product.h"};
        r["inner_product gpu_gemm"] = gpu_gemm;
        r["inner_product gpu_skinny_gemm"] = gpu_gemm;
        r["inner_product hvx_lane_partials"] = {"schedules/hvx/memory_bound.h"};
        r["gemm cpu_gemm"] = cpu_gemm;
        r["gemm gpu_gemm"] = gpu_gemm;
        r["gemm gpu_skinny_gemm"] = gpu_gemm;
        // Memory-bound ops: one schedule header per family.
        const std::vector<std::pair<std::string, std::string>> plain = {{"pooling", "pooling.h"},
                                                                        {"pad", "pad.h"},
                                                                        {"lrn", "lrn.h"},
                                                                        {"softmax", "softmax.h"},
                                                                        {"concat", "concat.h"},
                                                                        {"relu", "elementwise.h"},
                                                                        {"activation", "elementwise.h"},
                                                                        {"eltwise", "elementwise.h"},
                                                                        {"channel_affine", "elementwise.h"}};
        for (const auto &[op, file] : plain) {
            r[op + " cpu_direct"] = {"schedules/cpu/" + file};
            r[op + " gpu_direct"] = {"schedules/gpu/" + file};
            r[op + " hvx_direct"] = {"schedules/hvx/memory_bound.h"};
        }
        r["softmax cpu_direct"].push_back("schedules/cpu/space.h");
        r["softmax gpu_direct"].push_back("schedules/gpu/space.h");
        return r;
    }();
    return roots;
}

// Sources whose own text decides a variant's kernels but whose includes reach every other
// variant: the op's generator (it maps the variant's knobs to its schedule call) and the family
// spaces that declare the variant's knob domains and rules. Their includes are not followed.
std::vector<std::string> variant_shells(const std::string &op, const std::string &variant) {
    static const std::map<std::string, std::string> generators = {{"conv2d", "conv2d_generator.cc"},
                                                                  {"inner_product", "inner_product_generator.cc"},
                                                                  {"gemm", "gemm_generator.cc"},
                                                                  {"pooling", "pooling_generator.cc"},
                                                                  {"pad", "pad_generator.cc"},
                                                                  {"lrn", "lrn_generator.cc"},
                                                                  {"softmax", "softmax_generator.cc"},
                                                                  {"concat", "concat_generator.cc"},
                                                                  {"relu", "elementwise_generators.cc"},
                                                                  {"activation", "elementwise_generators.cc"},
                                                                  {"eltwise", "elementwise_generators.cc"},
                                                                  {"channel_affine", "elementwise_generators.cc"}};
    std::vector<std::string> shells;
    const auto generator = generators.find(op);
    if (generator != generators.end()) shells.push_back("generators/" + generator->second);
    const std::string family = variant.substr(0, variant.find('_'));
    if (family == "gpu" || family == "hvx") {
        shells.push_back("schedules/" + family + "/space.h");
    } else {  // cpu variants, and the test-only one: the families that start from cpu's space
        for (const char *f : {"cpu", "x86", "arm"}) shells.push_back(std::string("schedules/") + f + "/space.h");
    }
    return shells;
}

const SourceFile &source(const std::string &path, const std::string &needed_by) {
    for (const SourceFile &f : source_files())
        if (path == f.path) return f;
    throw CompileError("schedule version: " + needed_by + " names " + path +
                       ", which is not a source under generators/ or schedules/");
}

}  // namespace

std::vector<std::string> schedule_version_sources(const std::string &op, const std::string &variant) {
    const std::string key = op + " " + variant;
    const auto found = variant_roots().find(key);
    if (found == variant_roots().end())
        throw CompileError("schedule version: no sources are listed for variant " + variant + " of " + op +
                           " (compiler/schedule_version.cc)");
    std::set<std::string> seen;
    for (const std::string &shell : variant_shells(op, variant)) {
        source(shell, key);  // it must exist
        seen.insert(shell);
    }
    std::vector<std::string> pending = found->second;
    std::set<std::string> followed;
    while (!pending.empty()) {
        const std::string path = pending.back();
        pending.pop_back();
        seen.insert(path);
        if (!followed.insert(path).second) continue;
        for (const char *included : source(path, key).includes)
            // Halide.h and headers outside generators/ and schedules/ do not decide the schedule;
            // the compiler's identity keys the kernel cache for those.
            if (std::any_of(source_files().begin(), source_files().end(),
                            [&](const SourceFile &f) { return included == std::string(f.path); }))
                pending.push_back(included);
    }
    return std::vector<std::string>(seen.begin(), seen.end());
}

std::string schedule_version(const std::string &op, const std::string &variant) {
    std::string text;
    for (const std::string &path : schedule_version_sources(op, variant))
        text += path + " " + source(path, op + " " + variant).hash + "\n";
    return content_hash_hex(text).substr(0, 12);
}

}  // namespace cortado
