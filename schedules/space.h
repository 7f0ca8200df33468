// What a schedule family offers, declared without Halide so that the planner (and the
// libHalide-free checker) can choose: per op, the variants, each registered once with its typed
// properties (what it computes, the layouts it reads and writes, its knob space with domains,
// constraints and default rule, the sources its schedule version hashes), and the rule that
// picks the default variant from the shape. Each family declares its space in
// schedules/<family>/space.h and binds its variants' names to their schedule functions in
// schedules/<family>/bindings.cc (generators/schedule_registry.h).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ops/concat.h"
#include "ops/conv2d.h"
#include "ops/conv2d_fp16.h"
#include "ops/conv2d_int8.h"
#include "ops/conv2d_pool.h"
#include "ops/deconv2d.h"
#include "ops/elementwise.h"
#include "ops/gemm.h"
#include "ops/inner_product.h"
#include "ops/lrn.h"
#include "ops/pad.h"
#include "ops/pooling.h"
#include "ops/rearrange.h"
#include "ops/resize.h"
#include "ops/softmax.h"
#include "schedules/machine_model.h"

namespace cortado::schedules {

using ops::Knobs;

// Cores assumed where neither `host` detection nor a target description says: the
// development and CI machines'.
inline constexpr int kAssumedCores = 2;

// How full the rounds of a parallel loop of `tasks` equal tasks keep `cores` cores: 1 when
// the count is a multiple of the cores, 5 / 6 for 5 tasks on 2 (the last round runs one).
inline double busy_share(long long tasks, int cores) {
    if (tasks <= 0 || cores <= 1) return 1;
    const long long rounds = (tasks + cores - 1) / cores;
    return double(tasks) / double(rounds * cores);
}

// Whether a loop of `tasks` large tasks (GEMM blocks, Winograd blocks) keeps the cores busy: two
// a core at least, and a last round at least 90% full. Their rules cut tasks until it does.
inline bool keeps_cores_busy(long long tasks, int cores) {
    return tasks >= 2LL * cores && busy_share(tasks, cores) >= 0.9;
}

// Tasks a direct convolution's loop is cut into at least, where it has that many tiles: 8 a
// core, enough for the cores to finish together when one is slowed down.
inline int least_direct_tasks(int cores) { return 8 * std::max(1, cores); }

// The resolved target a plan is made for.
struct TargetInfo {
    std::string halide_target;
    std::string family;            // "cpu", "x86", "arm", "gpu", "hvx"
    int vector_bits = 128;         // one float vector register
    int registers_per_thread = 0;  // GPU register budget; 0: the API's default
    // CPUs: the cores the kernels' parallel loops run on (the runtime's pool has one thread
    // each); the default rules cut those loops into tasks that keep them all busy.
    int cores = kAssumedCores;
    // CPUs: registers, FMA pipes and caches the default rules size tiles and blocks by; empty:
    // the ones the Halide string implies.
    std::optional<MachineModel> machine = std::nullopt;
    MachineModel model() const { return machine ? *machine : instruction_set_machine_model(halide_target); }
    int float_lanes() const { return vector_bits / 32; }
    bool has_feature(const std::string &feature) const { return target_has_feature(halide_target, feature); }
};

// One knob: a whole number in [min, max].
struct KnobSpec {
    std::string name;
    int min = 0, max = 0;
    std::string meaning;
    // Whether its default rule cuts the work into parallel tasks for the target's cores: a value
    // measured on a machine with other cores does not carry over (compiler/record_transfer.h).
    bool splits_tasks = false;
};

template <typename Shape>
struct VariantSpec {
    std::string name;
    // What it computes (ops/form.h): the planner copies it into every choice of the variant.
    ops::Form form;
    // Whether it also reads and writes channel-blocked activations (ops::Layout); else NCHW only.
    bool channel_blocks = false;
    // The headers its schedule lives in (its schedule function, its knob space), from the
    // project root: its schedule version hashes them and the project headers they include, with
    // the op's generator, the bindings.cc of their family folders and the space.h of every
    // family that offers the variant (compiler/schedule_version.cc).
    std::vector<std::string> sources;
    std::vector<KnobSpec> knobs;
    // How the runtime packs the weights for this variant (ops::Choice::weights).
    ops::WeightPacking weights = ops::WeightPacking::CaffeOrder;
    // Relative L2 error the variant is checked to (ops::Choice::tolerance).
    float tolerance = 1e-5f;
    // Whether its schedule writes each output element once, reading a fused residual at that
    // element first: no split of the output overlaps another (ShiftInwards recomputes the last
    // tile over the one before it). The planner may then place the output over the residual
    // (kernel_plan.cc, write_sums_over_residuals).
    bool writes_each_output_once = false;
    // Why the variant cannot compute `shape`; empty when it can. May be unset (always can).
    std::function<std::string(const Shape &)> unsupported;
    // Why a complete set of knobs breaks a limit of the device or the shape (registers,
    // shared memory, threads per block, divisibility); empty when it does not. May be unset.
    std::function<std::string(const Shape &, const TargetInfo &, const Knobs &)> violated;
    // The default rule for the knobs: fills in every declared knob that `knobs` lacks, knowing
    // the ones stronger sources already set. Declared knobs it leaves out stay unset: an error.
    std::function<void(const Shape &, const TargetInfo &, Knobs &)> complete;
};

template <typename Shape>
struct OpSpace {
    using ShapeType = Shape;
    std::vector<VariantSpec<Shape>> variants;
    // The default rule for the variant: its name, from the shape.
    std::function<std::string(const Shape &, const TargetInfo &)> default_variant;
    // Where the default rule's variant pays only on channel-blocked tensors: the variant for a
    // layer that reads and writes NCHW ("": the default's). Unset where the layout does not matter.
    std::function<std::string(const Shape &, const TargetInfo &)> nchw_variant;

    const VariantSpec<Shape> *find(const std::string &name) const {
        for (const auto &v : variants)
            if (v.name == name) return &v;
        return nullptr;
    }
};

// A variant of the op's own algorithm with no knobs and no constraints, its schedule in
// `sources`: most memory-bound schedules.
template <typename Shape>
VariantSpec<Shape> plain_variant(const std::string &name, std::vector<std::string> sources) {
    VariantSpec<Shape> v;
    v.name = name;
    v.sources = std::move(sources);
    v.complete = [](const Shape &, const TargetInfo &, Knobs &) {};
    return v;
}

template <typename Shape>
OpSpace<Shape> single_variant(VariantSpec<Shape> variant) {
    OpSpace<Shape> space;
    const std::string name = variant.name;
    space.variants.push_back(std::move(variant));
    space.default_variant = [name](const Shape &, const TargetInfo &) { return name; };
    return space;
}

using ops::ActivationShape;
using ops::ChannelAffineShape;
using ops::ConcatShape;
using ops::Conv2dFp16Shape;
using ops::Conv2dInt8Shape;
using ops::Conv2dPoolShape;
using ops::Conv2dShape;
using ops::Deconv2dShape;
using ops::EltwiseShape;
using ops::GemmShape;
using ops::InnerProductShape;
using ops::LRNShape;
using ops::PadShape;
using ops::PoolingShape;
using ops::RearrangeShape;
using ops::ReluShape;
using ops::ResizeShape;
using ops::SoftmaxShape;

// Every op of a family. An op a family leaves without variants is an error at plan time.
struct FamilySpace {
    std::string name;
    std::tuple<OpSpace<Conv2dShape>, OpSpace<PoolingShape>, OpSpace<PadShape>, OpSpace<LRNShape>,
               OpSpace<InnerProductShape>, OpSpace<SoftmaxShape>, OpSpace<ConcatShape>, OpSpace<ReluShape>,
               OpSpace<ActivationShape>, OpSpace<EltwiseShape>, OpSpace<ChannelAffineShape>, OpSpace<GemmShape>,
               OpSpace<RearrangeShape>, OpSpace<ResizeShape>, OpSpace<Deconv2dShape>, OpSpace<Conv2dInt8Shape>,
               OpSpace<Conv2dFp16Shape>, OpSpace<Conv2dPoolShape>>
        ops;

    template <typename Shape>
    OpSpace<Shape> &op() {
        return std::get<OpSpace<Shape>>(ops);
    }
    template <typename Shape>
    const OpSpace<Shape> &op() const {
        return std::get<OpSpace<Shape>>(ops);
    }
    // Calls visit(Shape::kOp, const OpSpace<Shape> &) for every op.
    template <typename Visit>
    void for_each_op(Visit &&visit) const {
        std::apply([&](const auto &...space) { (visit(shape_op_name(space), space), ...); }, ops);
    }

  private:
    template <typename Shape>
    static const char *shape_op_name(const OpSpace<Shape> &) {
        return Shape::kOp;
    }
};

}  // namespace cortado::schedules
