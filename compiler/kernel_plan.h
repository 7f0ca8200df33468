// The compiled form of a network before code emission: which kernels (generator + constant
// parameters) run in which order on which tensor views, which learned blobs are expected and
// how they are packed, and where every tensor lives in the arena.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/kernel_choice.h"
#include "compiler/plan_options.h"
#include "compiler/plan_target.h"
#include "frontend/graph.h"
#include "ops/choice.h"
#include "ops/conv2d_pool.h"
#include "ops/gemm.h"
#include "runtime/network_description.h"

namespace cortado {

// One kernel: an op's shape and the choice of how to compute it, for one target and schedule
// family. Layers with equal kernel signatures share one compiled object, named from it.
struct KernelInstance {
    std::string op;     // "conv2d", ... (the shape's kOp)
    std::string shape;  // the shape's descriptor text (ops/field_text.h)
    ops::Choice choice;
    std::string target;    // Halide target string
    std::string family;    // schedule family
    int array_inputs = 0;  // generators with an array input (concat, eltwise): its size
    // Where the variant and each knob came from (kernel_choice.h); not part of any signature.
    std::string variant_source;
    std::vector<std::pair<std::string, std::string>> knob_sources;
    std::vector<std::string> notes;  // settings it did not take, and why

    std::string generator() const { return "cortado_" + op; }
    // The shape and the resolved target, without the choice: keys tuning records.
    std::string op_signature() const;
    std::string op_signature_hash() const;
    // The op signature plus the choice: keys the compiled-object cache.
    std::string signature() const;
    std::string function_name() const;  // "cortado_k_<hash of signature>"
    // What the generator is given: the descriptor, and the array input's size where there is one.
    std::vector<std::pair<std::string, std::string>> generator_params() const;
};

struct PlannedTensor {
    int value;  // Graph value id
    std::string blob_name;
    Shape shape;
    int64_t offset = 0;     // floats into the arena
    int channel_block = 0;  // > 0: stored channel-blocked (ops::Layout) between the steps that share it
    // > 0: its images lie this many floats apart, not densely: it is one slice of every image of
    // the concatenation it was placed in at batch > 1.
    int64_t batch_stride = 0;
    // The tensor whose storage holds it: itself, the tensor it is a view of (Reshape, Split, ...),
    // or the concatenation it was placed in (ConcatParams::in_place).
    int storage = 0;
};

struct PlannedBlob {
    std::string layer;
    int index;
    Shape shape;
    FillerSpec filler;
};

struct PlannedParam {
    Packing packing;
    int first_blob;
    int64_t count, rows = 0, cols = 0;
    float eps = 0.0f;
    int panel_width = 0;
    std::vector<float> channel_scales{};  // Int8Panels, Int8ChannelTerms: the model's; empty: from max |w|
    int weight_levels = 127;              // Int8Panels, Int8ChannelTerms: ops::kInt8WeightLevels or fewer
};

struct PlannedView {
    int tensor;                // >= 0 tensor index, < 0 param -1 - index
    std::vector<int> extents;  // innermost first
    // For a tensor with a batch stride: the dimension whose index is the image (the outermost of
    // extent batch, ones after it; generators/buffer_shape.h), which steps by the stride.
    int batch_dim = -1;
    int64_t batch_stride = 0;
};

// The floats from a tensor's first element to past its last: its count, or with a batch stride
// the last image's end.
int64_t tensor_span(const PlannedTensor &tensor);

struct PlannedStep {
    std::string layer;  // with fused layers: "conv1+relu1"
    int kernel = -1;    // index into NetworkPlan::kernels; -1 = alias only
    std::vector<PlannedView> views;
    int output_tensor;
    bool in_place = false;       // a concatenation whose inputs were written in their slices: no kernel
    bool over_residual = false;  // a convolution writing its output over the residual it adds
};

// A convolution and the MAX pooling after it (ConvolutionParams::pooling_follows) that run as
// their own steps: the conv2d_pool choice that said so (variant `unfused`, ops/conv2d_pool.h).
struct UnfusedPair {
    std::string conv_step, pool_step;
    KernelInstance choice;
};

struct NetworkPlan {
    std::string name;
    std::string target;                   // the Halide target string every kernel is compiled for
    std::string family;                   // the schedule family every kernel was chosen from
    int cores = 0;                        // CPUs: the cores the default rules cut parallel loops for
    schedules::MachineModel machine;      // CPUs: what the default rules sized tiles and blocks by
    std::vector<KernelInstance> kernels;  // unique
    std::vector<PlannedTensor> tensors;
    std::vector<PlannedBlob> blobs;
    std::vector<PlannedParam> params;
    std::vector<PlannedStep> steps;
    std::vector<FoldSpec> folds;  // affines folded into products' weights (frontend/affine_folding.h)
    std::vector<UnfusedPair> unfused_pairs;
    int input_tensor = 0, output_tensor = 0;
    int64_t arena_floats = 0;
    // The largest GPU register budget its kernels were scheduled for (the conv2d registers
    // knob, by default the target's registers_per_thread); 0: none asked, the driver's default.
    int registers_per_thread = 0;
    // OpenCL: the target description's options for the driver's compiler; empty: none.
    std::string opencl_build_options;

    // The relative L2 error its outputs are held to against the double-precision reference: the
    // loosest tolerance among its kernels' variants (an approximate layer's error flows into
    // every later blob).
    double tolerance() const;
};

// Throws CompileError for graphs the C API cannot express (several inputs or outputs, rank > 4)
// and for knob settings the target's family does not accept (kernel_choice.h gives the order
// in which the sources apply, the options' knobs first).
// The gemm op alone (no network): what `cortado bench sgemm` compiles. Its choice comes from
// the options' knobs, the target's knob table and the default rules.
KernelInstance plan_gemm(const ops::GemmShape &shape, const ops::Epilogue &epilogue, const PlanTarget &target,
                         const PlanOptions &options = {});

NetworkPlan plan_network(const Graph &graph, const std::string &name, const PlanTarget &target,
                         const PlanOptions &options = {});

}  // namespace cortado
