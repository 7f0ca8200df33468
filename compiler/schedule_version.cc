#include "compiler/schedule_version.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "frontend/compile_error.h"
#include "frontend/content_hash.h"
#include "schedules/families.h"

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

// The op's generator: it builds the algorithm each form names. Its includes are not followed:
// they reach every variant's algorithm.
std::string generator_source(const std::string &op) {
    static const std::map<std::string, std::string> generators = {{"conv2d", "conv2d_generator.cc"},
                                                                  {"conv2d_int8", "conv2d_int8_generator.cc"},
                                                                  {"conv2d_fp16", "conv2d_fp16_generator.cc"},
                                                                  {"conv2d_pool", "conv2d_pool_generator.cc"},
                                                                  {"inner_product", "inner_product_generator.cc"},
                                                                  {"gemm", "gemm_generator.cc"},
                                                                  {"pooling", "pooling_generator.cc"},
                                                                  {"pad", "pad_generator.cc"},
                                                                  {"lrn", "lrn_generator.cc"},
                                                                  {"softmax", "softmax_generator.cc"},
                                                                  {"concat", "concat_generator.cc"},
                                                                  {"rearrange", "rearrange_generator.cc"},
                                                                  {"resize", "resize_generator.cc"},
                                                                  {"deconv2d", "deconv2d_generator.cc"},
                                                                  {"relu", "elementwise_generators.cc"},
                                                                  {"activation", "elementwise_generators.cc"},
                                                                  {"eltwise", "elementwise_generators.cc"},
                                                                  {"channel_affine", "elementwise_generators.cc"}};
    const auto it = generators.find(op);
    if (it == generators.end()) throw CompileError("schedule version: no generator is known for op " + op);
    return "generators/" + it->second;
}

struct VariantSources {
    std::vector<std::string> roots;   // the variant's registered sources: their includes are followed
    std::vector<std::string> shells;  // hashed as they are
};

// From the registrations (schedules/space.h, VariantSpec::sources): the variant's sources; the
// bindings.cc of each family folder they lie in, which hands the knobs to the schedule; the
// space.h of every family that offers the variant, which declares its knob domains and rules.
VariantSources variant_sources(const std::string &op, const std::string &variant) {
    VariantSources found;
    std::set<std::string> shells{generator_source(op)};
    for (const auto &[family, space] : schedules::families())
        space.for_each_op([&](const char *name, const auto &op_space) {
            if (name != op) return;
            const auto *spec = op_space.find(variant);
            if (!spec) return;
            if (spec->sources.empty())
                throw CompileError("schedule version: variant " + variant + " of " + op + " on family " + family +
                                   " registers no sources (schedules/" + family + "/space.h)");
            found.roots.insert(found.roots.end(), spec->sources.begin(), spec->sources.end());
            shells.insert("schedules/" + family + "/space.h");
            for (const std::string &source : spec->sources) {
                const size_t folder_end = source.find('/', std::string("schedules/").size());
                if (source.rfind("schedules/", 0) == 0 && folder_end != std::string::npos)
                    shells.insert(source.substr(0, folder_end) + "/bindings.cc");
            }
        });
    if (found.roots.empty()) throw CompileError("schedule version: no family offers variant " + variant + " of " + op);
    found.shells.assign(shells.begin(), shells.end());
    return found;
}

const SourceFile &source(const std::string &path, const std::string &needed_by) {
    for (const SourceFile &f : source_files())
        if (path == f.path) return f;
    throw CompileError("schedule version: " + needed_by + " names " + path +
                       ", which is not a source under ops/, generators/ or schedules/");
}

}  // namespace

std::vector<std::string> schedule_version_sources(const std::string &op, const std::string &variant) {
    const std::string key = op + " " + variant;
    const VariantSources found = variant_sources(op, variant);
    std::set<std::string> seen;
    for (const std::string &shell : found.shells) {
        source(shell, key);  // it must exist
        seen.insert(shell);
    }
    std::vector<std::string> pending = found.roots;
    std::set<std::string> followed;
    while (!pending.empty()) {
        const std::string path = pending.back();
        pending.pop_back();
        seen.insert(path);
        if (!followed.insert(path).second) continue;
        for (const char *included : source(path, key).includes)
            // Halide.h and headers outside ops/, generators/ and schedules/ do not decide the schedule;
            // the compiler's identity keys the kernel cache for those.
            if (std::any_of(source_files().begin(), source_files().end(),
                            [&](const SourceFile &f) { return included == std::string(f.path); }))
                pending.push_back(included);
    }
    return std::vector<std::string>(seen.begin(), seen.end());
}

std::string schedule_version(const std::string &op, const std::string &variant) {
    // Remembered per variant (a failure as its message): every tuning record loaded asks for its
    // variant's version, and following the includes searches the source list once per include.
    static std::mutex mutex;
    static std::map<std::string, std::pair<std::string, std::string>> known;  // version, error
    const std::string key = op + " " + variant;
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(key);
    if (it == known.end()) {
        std::pair<std::string, std::string> result;
        try {
            std::string text;
            for (const std::string &path : schedule_version_sources(op, variant))
                text += path + " " + source(path, key).hash + "\n";
            result.first = content_hash_hex(text).substr(0, 12);
        } catch (const CompileError &e) {
            result.second = e.what();
        }
        it = known.emplace(key, result).first;
    }
    if (!it->second.second.empty()) throw CompileError(it->second.second);
    return it->second.first;
}

}  // namespace cortado
