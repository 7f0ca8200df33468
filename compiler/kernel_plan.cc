#include "compiler/kernel_plan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

#include "compiler/memory_plan.h"
#include "compiler/target_features.h"
#include "frontend/affine_folding.h"
#include "frontend/compile_error.h"
#include "frontend/content_hash.h"
#include "frontend/shape_inference.h"
#include "ops/batch_dimension.h"
#include "ops/concat.h"
#include "ops/conv2d.h"
#include "ops/conv2d_fp16.h"
#include "ops/conv2d_int8.h"
#include "ops/deconv2d.h"
#include "ops/depthwise.h"
#include "ops/elementwise.h"
#include "ops/gemm.h"
#include "ops/inner_product.h"
#include "ops/lrn.h"
#include "ops/pooling.h"
#include "ops/rearrange.h"
#include "ops/resize.h"
#include "ops/softmax.h"
#include "ops/winograd.h"
#include "runtime/fillers.h"
#include "schedules/families.h"

namespace cortado {

std::string KernelInstance::op_signature() const { return op + "|" + shape + "|" + target + "|" + family; }

std::string KernelInstance::op_signature_hash() const { return content_hash_hex(op_signature()); }

std::string KernelInstance::signature() const { return op_signature() + "|" + ops::fields_text(choice); }

std::string KernelInstance::function_name() const { return "cortado_k_" + content_hash_hex(signature()); }

int64_t tensor_span(const PlannedTensor &tensor) {
    const int64_t count = element_count(tensor.shape);
    if (tensor.batch_stride <= 0) return count;
    const int64_t batch = tensor.shape[0];
    return (batch - 1) * tensor.batch_stride + count / batch;
}

double NetworkPlan::tolerance() const {
    double loosest = ops::Choice{}.tolerance;
    for (const KernelInstance &k : kernels) loosest = std::max(loosest, double(k.choice.tolerance));
    return loosest;
}

std::vector<std::pair<std::string, std::string>> KernelInstance::generator_params() const {
    std::vector<std::pair<std::string, std::string>> params{
        {ops::kDescriptorParam, ops::descriptor_text(shape, choice)}};
    if (array_inputs > 0) params.emplace_back("inputs.size", std::to_string(array_inputs));
    return params;
}

namespace {

int64_t product(const Shape &s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to && i < s.size(); i++) p *= s[i];
    return p;
}

FillerSpec runtime_filler(const Filler &f) {
    FillerSpec spec{};
    if (!filler_type_from_name(f.type, &spec.type)) spec.type = FillerType::Unsupported;
    spec.value = f.value;
    spec.min = f.min;
    spec.max = f.max;
    spec.mean = f.mean;
    spec.std = f.std;
    spec.variance_norm = static_cast<VarianceNorm>(static_cast<int>(f.variance_norm));
    return spec;
}

// The activation op's shape for `count` elements of `p`.
ops::ActivationShape activation_shape(const ActivationParams &p, int count) {
    return ops::ActivationShape{count, p.function, p.min, p.max, p.alpha, p.beta, p.gamma};
}

// The epilogue of a layer's kernel: its bias, and the residual sum and activations fusion gave it.
template <typename Params>
ops::Epilogue epilogue(const Params &p, bool bias) {
    ops::Epilogue e;
    if constexpr (std::is_same_v<Params, ConvolutionParams>) e.sum = p.fused_sum;
    e.bias = bias, e.relu = p.fused_relu, e.relu_slope = p.relu_negative_slope;
    e.activation = p.fused_activation.has_value();
    if (e.activation) e.activation_shape = activation_shape(*p.fused_activation, 1);
    return e;
}

// Where choices come from besides the default rules, strongest first: the options' knobs, the
// tuning records (by op signature hash), the target's knob table.
struct ChoiceSources {
    std::map<std::string, ChoiceSettings> experiment, table;  // by op name
    ChoiceOverrides overrides;

    ChoiceSources() = default;
    ChoiceSources(const PlanTarget &target, const PlanOptions &options)
        : experiment(parse_knob_table(options.knobs, options.knobs_source)),
          table(parse_knob_table(target.knobs, kTargetKnobsSource)),
          overrides(options.records) {}
};

// The kernel for `shape` on `family`, its choice resolved from `sources` and the default
// rules. Throws CompileError without naming a layer.
template <typename Shape>
KernelInstance choose_kernel(const Shape &shape, const ops::Epilogue &epilogue, int array_inputs,
                             const schedules::TargetInfo &info, const schedules::FamilySpace &family,
                             const ChoiceSources &sources_by_kind, const ChoiceSettings *planner = nullptr) {
    KernelInstance instance;
    instance.op = Shape::kOp;
    instance.shape = ops::fields_text(shape);
    instance.target = info.halide_target;
    instance.family = info.family;
    instance.array_inputs = array_inputs;
    std::vector<const ChoiceSettings *> sources;
    const auto add = [&](const std::map<std::string, ChoiceSettings> &by_key, const std::string &key) {
        const auto it = by_key.find(key);
        if (it != by_key.end()) sources.push_back(&it->second);
    };
    add(sources_by_kind.experiment, instance.op);
    add(sources_by_kind.overrides, instance.op_signature_hash());
    add(sources_by_kind.table, instance.op);
    if (planner) sources.push_back(planner);  // the planner's own choice: above the default rule only
    for (const ChoiceSettings *s : sources)
        if (!s->op.empty() && s->op != instance.op)
            throw CompileError(s->source + ": a record for op " + s->op + " has the op signature of this " +
                               instance.op);
    ResolvedChoice resolved;
    try {
        resolved = resolve_choice(family.op<Shape>(), shape, info, sources);
    } catch (const CompileError &e) {
        // A record from another machine that this target's limits refuse: the layer keeps the
        // weaker sources, and the plan says why (compiler/record_transfer.h).
        const auto transferred = std::find_if(sources.begin(), sources.end(),
                                              [](const ChoiceSettings *s) { return s->transferred_cores > 0; });
        if (transferred == sources.end()) throw;
        const std::string source = (*transferred)->source;
        sources.erase(transferred);
        resolved = resolve_choice(family.op<Shape>(), shape, info, sources);
        resolved.notes.push_back(source + ": not taken here: " + e.what());
    }
    instance.choice = resolved.choice;
    instance.choice.epilogue = epilogue;
    instance.variant_source = resolved.variant_source;
    instance.knob_sources = resolved.knob_sources;
    instance.notes = resolved.notes;
    return instance;
}

class Planner {
  public:
    // `moved`: layers to run on the given variant (one that reads and writes channel blocks, or
    // the family's NCHW variant), unless a stronger source says otherwise (plan_network).
    Planner(const Graph &graph, const PlanTarget &target, const PlanOptions &options,
            std::map<std::string, std::string> moved = {})
        : graph_(graph),
          info_(resolve_plan_target(target)),
          family_(schedules::families().at(info_.family)),
          layouts_(options.layouts),
          moved_(std::move(moved)) {
        sources_ = ChoiceSources{target, options};
        plan_.opencl_build_options = target.opencl_build_options;
    }

    NetworkPlan run(const std::string &name) {
        plan_.name = name;
        plan_.target = info_.halide_target;
        plan_.family = info_.family;
        if (info_.family != "gpu") plan_.cores = info_.cores, plan_.machine = info_.model();
        if (graph_.inputs.size() != 1 || graph_.outputs.size() != 1) {
            std::string outs;
            for (int v : graph_.outputs) outs += " '" + graph_.values[v].blob_name + "'";
            throw CompileError("network '" + graph_.name + "' has " + std::to_string(graph_.inputs.size()) +
                               " inputs and " + std::to_string(graph_.outputs.size()) + " outputs (" + outs +
                               " ); the C API takes exactly one of each");
        }
        for (int v : {graph_.inputs[0], graph_.outputs[0]})
            if (graph_.values[v].shape.size() > size_t(kMaxInputOutputRank))
                throw CompileError(
                    "blob '" + graph_.values[v].blob_name + "' has " + std::to_string(graph_.values[v].shape.size()) +
                    " axes; the network's input and output have at most " + std::to_string(kMaxInputOutputRank));
        plan_.input_tensor = tensor_of(graph_.inputs[0]);
        for (size_t i = 0; i < graph_.layers.size(); i++) {
            const Layer *next = i + 1 < graph_.layers.size() ? &graph_.layers[i + 1] : nullptr;
            if (next && plan_conv_pool(graph_.layers[i], *next)) i++;
            else plan_layer(graph_.layers[i]);
        }
        plan_.output_tensor = tensor_of(graph_.outputs[0]);
        // Concatenations are placed first: a placed one's inputs and output then take one layout.
        concatenate_in_place();
        block_channels();
        note_movable_layers();
        write_sums_over_residuals();
        place_tensors();
        // The budget the kernels were scheduled for: the runtime must grant at least that much
        // (runtime/cuda_register_cap.h).
        // A default-rule budget without one from the target is the API's own default: no cap to raise.
        for (const KernelInstance &k : plan_.kernels)
            for (const auto &[knob, source] : k.knob_sources)
                if (knob == "registers" && (source != kDefaultRuleSource || info_.registers_per_thread > 0))
                    plan_.registers_per_thread = std::max(plan_.registers_per_thread, k.choice.knobs.get("registers"));
        return std::move(plan_);
    }

  private:
    [[noreturn]] void fail(const Layer &layer, const std::string &message) const {
        throw CompileError(layer.location.to_string() + ": layer '" + layer.name + "' (" + layer.type +
                           "): " + message);
    }

    int tensor_of(int value) {
        auto it = tensor_index_.find(value);
        if (it != tensor_index_.end()) return it->second;
        const Value &v = graph_.values[value];
        if (v.shape.size() > size_t(kMaxRank))
            throw CompileError("blob '" + v.blob_name + "' has " + std::to_string(v.shape.size()) +
                               " axes; cortado handles at most " + std::to_string(kMaxRank));
        if (element_count(v.shape) > std::numeric_limits<int32_t>::max())
            throw CompileError("blob '" + v.blob_name + "' of shape " + shape_to_string(v.shape) +
                               " has more than 2^31 elements, the most one kernel can address");
        plan_.tensors.push_back(PlannedTensor{value, v.blob_name, v.shape, 0});
        storage_of_.push_back(static_cast<int>(storage_of_.size()));
        const int index = static_cast<int>(plan_.tensors.size()) - 1;
        tensor_index_[value] = index;
        return index;
    }

    const Shape &shape(int value) const { return graph_.values[value].shape; }

    // Views of a tensor in Halide order (innermost first).
    PlannedView full_view(int value) {
        const Shape &s = shape(value);
        return PlannedView{tensor_of(value), std::vector<int>(s.rbegin(), s.rend())};
    }
    PlannedView flat_view(int value) {
        return PlannedView{tensor_of(value), {static_cast<int>(element_count(shape(value)))}};
    }
    PlannedView three_axis_view(int value, int axis_begin, int axis_end) {
        const Shape &s = shape(value);
        return PlannedView{
            tensor_of(value),
            {static_cast<int>(product(s, axis_end, s.size())), static_cast<int>(product(s, axis_begin, axis_end)),
             static_cast<int>(product(s, 0, axis_begin))}};
    }

    int add_blob(const Layer &layer, int index, const Filler &filler) {
        FillerSpec spec = runtime_filler(filler);
        plan_.blobs.push_back(PlannedBlob{layer.name, index, layer.weight_shapes[index], spec});
        return static_cast<int>(plan_.blobs.size()) - 1;
    }
    PlannedView param_view(PlannedParam param, std::vector<int> extents) {
        plan_.params.push_back(param);
        return PlannedView{-static_cast<int>(plan_.params.size()), std::move(extents)};
    }
    // An outputs x depth weight blob (depth x outputs when `transposed`) in GEMM panels of
    // `width` outputs, the last zero-padded.
    static PlannedParam panel_param(int blob, int outputs, int depth, int width, bool transposed) {
        PlannedParam param{transposed ? Packing::PanelsOfTranspose : Packing::Panels, blob,
                           int64_t(ops::panel_count(outputs, width)) * width * depth};
        param.rows = transposed ? depth : outputs;
        param.cols = transposed ? outputs : depth;
        param.panel_width = width;
        return param;
    }

    // The affines folded into a product's weights: their blobs, read as their own layers hold
    // them, and the folds that apply them to `weights` (outputs x inner, or inner x outputs when
    // `transposed`) and to the bias, the product's own or zeros the folds write. Returns the bias blob.
    int fold_affines_into(const Layer &layer, const std::vector<FoldedAffine> &affines, int weights, bool has_bias,
                          const Filler &bias_filler, int64_t outputs, int64_t inner, bool transposed) {
        const int bias = has_bias ? add_blob(layer, 1, bias_filler) : folded_blob(layer, 1, outputs, 0.0f);
        for (const FoldedAffine &a : affines) {
            const auto blob = [&](int index, FillerSpec filler) {
                if (index >= int(a.weight_shapes.size()))
                    throw CompileError("layer '" + a.layer + "' has no blob " + std::to_string(index) + " to fold");
                plan_.blobs.push_back(PlannedBlob{a.layer, index, a.weight_shapes[size_t(index)], filler});
                return int(plan_.blobs.size()) - 1;
            };
            FoldSpec fold{weights, bias, outputs, inner, transposed, a.batch_norm, -1, a.shift, a.eps};
            if (a.batch_norm) {
                fold.first_blob = batch_norm_blobs(a.layer, a.weight_shapes);
            } else {
                fold.first_blob = blob(0, runtime_filler(a.filler));
                if (a.shift) blob(1, runtime_filler(a.bias_filler));
            }
            plan_.folds.push_back(fold);
        }
        return bias;
    }

    PlannedView folded_bias(const Layer &layer, const std::vector<FoldedAffine> &affines, int weights, bool has_bias,
                            const Filler &bias_filler, int64_t outputs, int64_t inner, bool transposed) {
        const int bias = fold_affines_into(layer, affines, weights, has_bias, bias_filler, outputs, inner, transposed);
        return param_view(PlannedParam{Packing::Copy, bias, outputs}, {int(outputs)});
    }

    // A blob that folds write, `value` everywhere before them (FillerType::Folded); `index` only
    // labels it.
    int folded_blob(const Layer &layer, int index, int64_t count, float value) {
        FillerSpec filler = runtime_filler(Filler{});
        filler.type = FillerType::Folded;
        filler.value = value;
        plan_.blobs.push_back(PlannedBlob{layer.name, index, Shape{count}, filler});
        return int(plan_.blobs.size()) - 1;
    }

    // The blob as it is, or zeros when the layer has no such blob (bias_term: false).
    PlannedView bias_view(const Layer &layer, bool present, int index, const Filler &filler, int count) {
        if (!present) return param_view(PlannedParam{Packing::Zeros, -1, count}, {count});
        int blob = add_blob(layer, index, filler);
        return param_view(PlannedParam{Packing::Copy, blob, count}, {count});
    }

    // The kernel for `shape`, its choice resolved from the sources strongest first; layers
    // with equal kernel signatures share one.
    template <typename Shape>
    int kernel(const Layer &layer, const Shape &shape, const ops::Epilogue &epilogue = {}, int array_inputs = 0) {
        return add_kernel(choose(layer, shape, epilogue, array_inputs));
    }

    template <typename Shape>
    KernelInstance choose(const Layer &layer, const Shape &shape, const ops::Epilogue &epilogue = {},
                          int array_inputs = 0) {
        const auto move = std::is_same_v<Shape, ops::Conv2dShape> ? moved_.find(layer.name) : moved_.end();
        std::optional<ChoiceSettings> layout_rule;
        if (move != moved_.end()) layout_rule = ChoiceSettings{kLayoutRuleSource, move->second, {}, "", false};
        try {
            return choose_kernel(shape, epilogue, array_inputs, info_, family_, sources_,
                                 layout_rule ? &*layout_rule : nullptr);
        } catch (const CompileError &e) {
            fail(layer, e.what());
        }
    }

    int add_kernel(KernelInstance instance) {
        const std::string key = instance.signature();
        auto it = kernel_index_.find(key);
        if (it != kernel_index_.end()) return it->second;
        plan_.kernels.push_back(std::move(instance));
        const int index = static_cast<int>(plan_.kernels.size()) - 1;
        kernel_index_[key] = index;
        return index;
    }

    std::string step_name(const Layer &layer) const {
        std::string name = layer.name;
        for (const auto &f : layer.fused_layers) name += "+" + f;
        return name;
    }

    void add_step(const Layer &layer, int kernel_index, std::vector<PlannedView> views) {
        step_layers_[int(plan_.steps.size())] = layer.name;
        plan_.steps.push_back(
            PlannedStep{step_name(layer), kernel_index, std::move(views), tensor_of(layer.outputs[0])});
    }

    // Layers that only reinterpret their input's memory.
    void alias(const Layer &layer) {
        const int source = tensor_of(layer.inputs[0]);
        for (int out : layer.outputs) {
            const int t = tensor_of(out);
            storage_of_[t] = storage_of_[source];
            plan_.steps.push_back(PlannedStep{step_name(layer), -1, {}, t});
        }
    }

    void plan_layer(const Layer &layer) {
        std::visit([&](const auto &p) { plan(layer, p); }, layer.params);
    }

    void plan(const Layer &layer, const InputParams &) { fail(layer, "unexpected Input layer"); }

    ops::Conv2dShape conv_shape(const Layer &layer, const ConvolutionParams &p) const {
        const Shape &x = shape(layer.inputs[0]);
        const Shape &y = shape(layer.outputs[0]);
        ops::Conv2dShape shape;
        shape.batch = int(x[0]), shape.in_channels = int(x[1]), shape.in_h = int(x[2]), shape.in_w = int(x[3]);
        shape.out_channels = int(y[1]), shape.out_h = int(y[2]), shape.out_w = int(y[3]);
        shape.kernel_h = p.kernel_h, shape.kernel_w = p.kernel_w, shape.stride_h = p.stride_h,
        shape.stride_w = p.stride_w;
        shape.pad_h = p.pad_h, shape.pad_w = p.pad_w, shape.dilation_h = p.dilation_h, shape.dilation_w = p.dilation_w;
        shape.group = p.group;
        return shape;
    }

    // A convolution and the MAX pooling after it that fusion marked (fuse_max_poolings checked
    // the pair) as one step, where their conv2d_pool choice is a fused variant; false, with the
    // choice kept in NetworkPlan::unfused_pairs, where it is `unfused` (the default) and each
    // plans on its own.
    bool plan_conv_pool(const Layer &conv, const Layer &next) {
        const auto *p = std::get_if<ConvolutionParams>(&conv.params);
        const auto *q = std::get_if<PoolingParams>(&next.params);
        if (!p || !q || !p->pooling_follows || next.inputs != conv.outputs) return false;
        const ops::Conv2dPoolShape shape = ops::conv_pool_shape(
            conv_shape(conv, *p), pooling_shape(*q, this->shape(next.inputs[0]), this->shape(next.outputs[0])));
        Layer fused = conv;
        fused.outputs = next.outputs;
        fused.fused_layers.push_back(next.name);
        fused.fused_layers.insert(fused.fused_layers.end(), next.fused_layers.begin(), next.fused_layers.end());
        KernelInstance choice = choose(fused, shape, epilogue(*p, p->bias_term || !p->folded_affines.empty()));
        if (choice.choice.variant == ops::kUnfusedConvPool) {
            plan_.unfused_pairs.push_back({step_name(conv), step_name(next), std::move(choice)});
            return false;
        }
        const int k = add_kernel(std::move(choice));
        const Shape &w = conv.weight_shapes[0];
        const auto [weights, bias] = conv_weights_and_bias(conv, *p);
        const PlannedView packed = param_view(PlannedParam{Packing::Copy, weights, element_count(w)},
                                              {int(w[3]), int(w[2]), int(w[1]), int(w[0])});
        add_step(fused, k, {full_view(conv.inputs[0]), packed, bias, full_view(next.outputs[0])});
        return true;
    }

    void plan(const Layer &layer, const ConvolutionParams &p) {
        const ops::Conv2dShape shape = conv_shape(layer, p);
        if (p.int8_input) return plan_int8(layer, p, shape);
        if (p.fp16) return plan_fp16(layer, p, shape);
        const int k = kernel(layer, shape, epilogue(p, p.bias_term || !p.folded_affines.empty()));
        const Shape &w = layer.weight_shapes[0];
        const auto [weights, bias] = conv_weights_and_bias(layer, p);
        const ops::Choice &choice = plan_.kernels[k].choice;
        PlannedView input = full_view(layer.inputs[0]), output = full_view(layer.outputs[0]), packed;
        if (choice.weights == ops::WeightPacking::CaffeOrder) {
            packed = param_view(PlannedParam{Packing::Copy, weights, element_count(w)},
                                {int(w[3]), int(w[2]), int(w[1]), int(w[0])});
        } else if (choice.form.is(ops::Algorithm::Winograd)) {
            // Winograd (generators/conv2d_winograd.h): the tensors as they are, the weights
            // transformed in panels per position.
            const int m = choice.form.winograd_m, r = choice.form.winograd_r;
            const int width = ops::panel_width(choice), alpha = ops::winograd_matrices(m, r).alpha;
            const int panels = ops::panel_count(p.num_output, width);
            const int in_per_group = shape.in_channels / shape.group;
            const Packing packing = r == 5   ? Packing::WinogradF2K5Panels
                                    : m == 4 ? Packing::WinogradF4Panels
                                             : Packing::WinogradF2Panels;
            PlannedParam param{packing, weights, int64_t(alpha) * alpha * panels * width * in_per_group};
            param.rows = p.num_output, param.cols = in_per_group, param.panel_width = width;
            packed = param_view(param, {width, in_per_group, panels, alpha * alpha});
        } else {
            // The GEMM and channel-lanes variants (generators/conv2d_generator.cc): the same
            // tensors seen as matrices, the weights in panels.
            const int depth = int(w[1] * w[2] * w[3]), width = ops::panel_width(choice);
            const int batch = shape.batch, pixels = shape.out_h * shape.out_w;
            if (choice.form.is(ops::Algorithm::ChannelLanes)) {
                output.extents = {pixels, p.num_output, batch, 1};
            } else if (choice.form.is_conv_gemm(ops::ConvGemmForm::FullyConnected)) {
                input.extents = {depth, batch, 1, 1};
                output.extents = {p.num_output, batch, 1, 1};
            } else {
                input.extents = {shape.in_h * shape.in_w, depth, batch, 1};
                output.extents = {pixels, p.num_output, batch, 1};
            }
            packed = param_view(panel_param(weights, p.num_output, depth, width, false),
                                {width, depth, ops::panel_count(p.num_output, width), 1});
        }
        add_conv_step(layer, p, k, {input, packed, bias}, output);
        conv_shapes_[int(plan_.steps.size()) - 1] = shape;
    }

    // A convolution's weights blob and its bias: its own (or zeros), or the one the affines folded
    // into it write (frontend/affine_folding.h), whose blobs then come first.
    std::pair<int, PlannedView> conv_weights_and_bias(const Layer &layer, const ConvolutionParams &p) {
        const Shape &w = layer.weight_shapes[0];
        const int weights = add_blob(layer, 0, p.weight_filler);
        if (p.folded_affines.empty()) return {weights, bias_view(layer, p.bias_term, 1, p.bias_filler, p.num_output)};
        return {weights, folded_bias(layer, p.folded_affines, weights, p.bias_term, p.bias_filler, p.num_output,
                                     element_count(w) / w[0], false)};
    }

    // The step of a convolution kernel: `views` (its input and parameters), then the residual of
    // a fused sum, seen as the output is, then the output.
    void add_conv_step(const Layer &layer, const ConvolutionParams &p, int kernel_index, std::vector<PlannedView> views,
                       const PlannedView &output) {
        if (p.fused_sum) views.push_back(PlannedView{tensor_of(layer.inputs[1]), output.extents});
        views.push_back(output);
        add_step(layer, kernel_index, std::move(views));
    }

    // An int8 convolution (ops/conv2d_int8.h): the tensors NCHW as they are, the weights
    // quantized and packed in words of four input channels, and per output channel the weights'
    // scale and sum (Packing::Int8ChannelTerms).
    void plan_int8(const Layer &layer, const ConvolutionParams &p, const ops::Conv2dShape &conv) {
        ops::Conv2dInt8Shape shape{conv, p.int8_input->scale, p.int8_input->zero_point, p.int8_input->weight_levels};
        if (!ops::int8_sum_fits(conv))
            fail(layer, "its sums of " + std::to_string(ops::int8_positions(conv) * ops::kInt8ChannelsPerWord) +
                            " products could overflow 32 bits in int8; leave it out of the .qparams file");
        const int k = kernel(layer, shape, epilogue(p, p.bias_term || !p.folded_affines.empty()));
        const auto [weights, bias] = conv_weights_and_bias(layer, p);
        const int width = ops::panel_width(plan_.kernels[k].choice);
        const int panels = ops::panel_count(p.num_output, width), positions = ops::int8_positions(conv);
        // Four bytes of weights to a float of the parameter buffer, which the runtime views as bytes.
        PlannedParam packed{Packing::Int8Panels, weights, int64_t(panels) * positions * width};
        packed.rows = p.num_output, packed.cols = conv.in_channels / conv.group, packed.panel_width = width;
        packed.channel_scales = p.int8_weight_scales;
        packed.weight_levels = shape.weight_levels;
        PlannedParam terms{Packing::Int8ChannelTerms, weights, 2 * int64_t(p.num_output)};
        terms.rows = p.num_output, terms.cols = conv.in_channels / conv.group;
        terms.channel_scales = p.int8_weight_scales;
        terms.weight_levels = shape.weight_levels;
        // The output and a fused residual as (pixels, channels, images, 1).
        PlannedView output = full_view(layer.outputs[0]);
        output.extents = {conv.out_w * conv.out_h, p.num_output, conv.batch, 1};
        add_conv_step(
            layer, p, k,
            {full_view(layer.inputs[0]), param_view(packed, {ops::kInt8ChannelsPerWord, width, positions, panels}),
             bias, param_view(terms, {p.num_output, 2})},
            output);
    }

    // A half-precision convolution (ops/conv2d_fp16.h): the tensors NCHW as they are, the weights
    // rounded to half in column panels.
    void plan_fp16(const Layer &layer, const ConvolutionParams &p, const ops::Conv2dShape &conv) {
        const int k = kernel(layer, ops::Conv2dFp16Shape{conv}, epilogue(p, p.bias_term || !p.folded_affines.empty()));
        const auto [weights, bias] = conv_weights_and_bias(layer, p);
        const int width = ops::panel_width(plan_.kernels[k].choice), panels = ops::panel_count(p.num_output, width);
        const int depth = conv.in_channels / conv.group * conv.kernel_h * conv.kernel_w;
        // Two halves to a float of the parameter buffer, which the runtime views as halves.
        PlannedParam packed{Packing::Fp16Panels, weights, (int64_t(panels) * width * depth + 1) / 2};
        packed.rows = p.num_output, packed.cols = depth, packed.panel_width = width;
        PlannedView output = full_view(layer.outputs[0]);
        output.extents = {conv.out_w * conv.out_h, p.num_output, conv.batch, 1};
        add_conv_step(layer, p, k, {full_view(layer.inputs[0]), param_view(packed, {width, depth, panels}), bias},
                      output);
    }

    void plan(const Layer &layer, const DeconvolutionParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const Shape &y = shape(layer.outputs[0]);
        ops::Deconv2dShape s;
        s.batch = int(x[0]), s.in_channels = int(x[1]), s.in_h = int(x[2]), s.in_w = int(x[3]);
        s.out_channels = int(y[1]), s.out_h = int(y[2]), s.out_w = int(y[3]);
        s.kernel_h = p.kernel_h, s.kernel_w = p.kernel_w, s.stride_h = p.stride_h, s.stride_w = p.stride_w;
        s.pad_h = p.pad_h, s.pad_w = p.pad_w, s.dilation_h = p.dilation_h, s.dilation_w = p.dilation_w;
        s.group = p.group;
        const int k = kernel(layer, s);
        const Shape &w = layer.weight_shapes[0];
        const int weights = add_blob(layer, 0, p.weight_filler);
        const PlannedView packed = param_view(PlannedParam{Packing::Copy, weights, element_count(w)},
                                              {int(w[3]), int(w[2]), int(w[1]), int(w[0])});
        add_step(layer, k,
                 {full_view(layer.inputs[0]), packed, bias_view(layer, p.bias_term, 1, p.bias_filler, p.num_output),
                  full_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const ReLUParams &p) {
        const int64_t count = element_count(shape(layer.inputs[0]));
        const int k = kernel(layer, ops::ReluShape{int(count), p.negative_slope});
        add_step(layer, k, {flat_view(layer.inputs[0]), flat_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const ActivationParams &p) {
        const int64_t count = element_count(shape(layer.inputs[0]));
        const int k = kernel(layer, activation_shape(p, int(count)));
        add_step(layer, k, {flat_view(layer.inputs[0]), flat_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const PoolingParams &p) {
        const ops::PoolingShape shape = pooling_shape(p, this->shape(layer.inputs[0]), this->shape(layer.outputs[0]));
        const int k = kernel(layer, shape);
        add_step(layer, k, {full_view(layer.inputs[0]), full_view(layer.outputs[0])});
        pooling_shapes_[int(plan_.steps.size()) - 1] = shape;
    }

    void plan(const Layer &layer, const PadParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        ops::PadShape shape;
        shape.batch = int(x[0]), shape.channels = int(x[1]), shape.in_h = int(x[2]), shape.in_w = int(x[3]);
        shape.top = p.top, shape.left = p.left, shape.bottom = p.bottom, shape.right = p.right, shape.value = p.value;
        shape.mode = p.mode;
        const int k = kernel(layer, shape);
        add_step(layer, k, {full_view(layer.inputs[0]), full_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const ResizeParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        ops::ResizeShape s;
        s.batch = int(x[0]), s.channels = int(x[1]), s.in_h = int(x[2]), s.in_w = int(x[3]);
        s.out_h = p.out_h, s.out_w = p.out_w, s.scale_h = float(p.scale_h), s.scale_w = float(p.scale_w);
        s.mode = p.mode, s.coordinates = p.coordinates;
        // Only nearest reads the rounding: equal linear resizes share one kernel.
        if (p.mode == "nearest") s.rounding = p.rounding;
        const int k = kernel(layer, s);
        add_step(layer, k, {full_view(layer.inputs[0]), full_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const LRNParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const ops::LRNShape shape{int(x[0]), int(x[1]),    int(x[2]),
                                  int(x[3]), p.local_size, p.alpha,
                                  p.beta,    p.k,          p.region == LRNParams::Region::AcrossChannels};
        const int k = kernel(layer, shape);
        add_step(layer, k, {full_view(layer.inputs[0]), full_view(layer.outputs[0])});
    }

    void plan(const Layer &layer, const InnerProductParams &p) {
        if (p.transpose_input) return plan_transposed_input(layer, p);
        const Shape &x = shape(layer.inputs[0]);
        const int axis = canonical_axis(p.axis, x.size(), layer.name);
        const int64_t rows = product(x, 0, axis), inputs = product(x, axis, x.size());
        const bool folded = !p.folded_affines.empty();
        const int k = kernel(layer, ops::InnerProductShape{int(rows), int(inputs), p.num_output},
                             epilogue(p, p.bias_term || folded));
        int weights = add_blob(layer, 0, p.weight_filler);
        const std::optional<PlannedView> folded_view =
            folded ? std::optional(folded_bias(layer, p.folded_affines, weights, p.bias_term, p.bias_filler,
                                               p.num_output, inputs, p.transpose))
                   : std::nullopt;
        const ops::Choice &choice = plan_.kernels[k].choice;
        std::vector<PlannedView> views;
        views.push_back(PlannedView{tensor_of(layer.inputs[0]), {int(inputs), int(rows)}});
        if (choice.weights == ops::WeightPacking::CaffeOrder) {
            PlannedParam packed{p.transpose ? Packing::Transpose : Packing::Copy, weights, inputs * p.num_output,
                                inputs, p.num_output};
            views.push_back(param_view(packed, {int(inputs), p.num_output}));
        } else {
            const int width = ops::panel_width(choice);
            views.push_back(param_view(panel_param(weights, p.num_output, int(inputs), width, p.transpose),
                                       {width * int(inputs), ops::panel_count(p.num_output, width)}));
        }
        views.push_back(folded_view ? *folded_view : bias_view(layer, p.bias_term, 1, p.bias_filler, p.num_output));
        views.push_back(PlannedView{tensor_of(layer.outputs[0]), {p.num_output, int(rows)}});
        add_step(layer, k, std::move(views));
    }

    // ONNX Gemm's transA: the GEMM op reads the K x M input transposed and the weights as they
    // are stored (N x K, or K x N with `transpose`).
    void plan_transposed_input(const Layer &layer, const InnerProductParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int depth = int(x[0]), rows = int(x[1]), n = p.num_output;
        const int k = kernel(layer, ops::GemmShape{rows, n, depth, true, !p.transpose}, epilogue(p, p.bias_term));
        const int weights = add_blob(layer, 0, p.weight_filler);
        std::vector<PlannedView> views;
        views.push_back(PlannedView{tensor_of(layer.inputs[0]), {rows, depth}});
        views.push_back(param_view(PlannedParam{Packing::Copy, weights, int64_t(depth) * n},
                                   p.transpose ? std::vector<int>{n, depth} : std::vector<int>{depth, n}));
        views.push_back(bias_view(layer, p.bias_term, 1, p.bias_filler, n));
        views.push_back(PlannedView{tensor_of(layer.outputs[0]), {n, rows}});
        add_step(layer, k, std::move(views));
    }

    void plan(const Layer &layer, const SoftmaxParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int a = canonical_axis(p.axis, x.size(), layer.name);
        PlannedView in = three_axis_view(layer.inputs[0], a, a + 1);
        const int k = kernel(layer, ops::SoftmaxShape{in.extents[0], in.extents[1], in.extents[2]});
        add_step(layer, k, {in, three_axis_view(layer.outputs[0], a, a + 1)});
    }

    void plan(const Layer &layer, const ConcatParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int a = canonical_axis(p.axis, x.size(), layer.name);
        std::vector<PlannedView> views;
        ops::ConcatShape shape;
        for (int v : layer.inputs) {
            views.push_back(three_axis_view(v, a, a + 1));
            shape.channels.push_back(views.back().extents[1]);
        }
        views.push_back(three_axis_view(layer.outputs[0], a, a + 1));
        shape.inner = views.back().extents[0];
        shape.outer = views.back().extents[2];
        const int k = kernel(layer, shape, {}, shape.inputs());
        // In place needs each input's slice to be one range per image: nothing but the batch
        // repeats it (axis 1, or batch 1).
        if (p.in_place && (shape.outer == 1 || a == 1)) {
            ConcatSlices slices{
                int(plan_.steps.size()), tensor_of(layer.outputs[0]), shape.outer, a == 1 && x.size() == 4, {}, {}};
            int64_t offset = 0;
            for (const PlannedView &v : views) {
                if (v.tensor == slices.output) break;
                slices.inputs.push_back(v.tensor);
                slices.offsets.push_back(offset);
                offset += int64_t(v.extents[0]) * v.extents[1];
            }
            concats_.push_back(std::move(slices));
        }
        add_step(layer, k, std::move(views));
    }

    void plan(const Layer &layer, const EltwiseParams &p) {
        const int64_t count = element_count(shape(layer.inputs[0]));
        ops::EltwiseShape shape;
        shape.count = static_cast<int>(count);
        shape.operation = p.operation;
        shape.coefficients = p.coeff;
        if (shape.coefficients.empty()) shape.coefficients.assign(layer.inputs.size(), 1.0f);
        const int k = kernel(layer, shape, epilogue(p, false), shape.inputs());
        std::vector<PlannedView> views;
        for (int v : layer.inputs) views.push_back(flat_view(v));
        views.push_back(flat_view(layer.outputs[0]));
        add_step(layer, k, std::move(views));
    }

    void plan(const Layer &layer, const DropoutParams &) { alias(layer); }
    void plan(const Layer &layer, const SplitParams &) { alias(layer); }
    void plan(const Layer &layer, const FlattenParams &) { alias(layer); }
    void plan(const Layer &layer, const ReshapeParams &) { alias(layer); }

    // x · scale + shift per channel of the axes [axis_begin, axis_end); the scale is a learned
    // param, or with `scale_value` >= 0 a computed tensor (Caffe's two-bottom Scale).
    void channel_affine(const Layer &layer, int axis_begin, int axis_end, PlannedParam scale, PlannedParam shift,
                        bool negative_only = false, const ops::Epilogue &epilogue = {}, int scale_value = -1) {
        PlannedView in = three_axis_view(layer.inputs[0], axis_begin, axis_end);
        const int channels = in.extents[1];
        const int k =
            kernel(layer, ops::ChannelAffineShape{in.extents[0], channels, in.extents[2], negative_only}, epilogue);
        const PlannedView scale_view =
            scale_value >= 0 ? PlannedView{tensor_of(scale_value), {channels}} : param_view(scale, {channels});
        add_step(
            layer, k,
            {in, scale_view, param_view(shift, {channels}), three_axis_view(layer.outputs[0], axis_begin, axis_end)});
        // Over the channels of an NCHW tensor (of each image, or of all), it can read and write
        // blocks of them.
        const Shape &x = shape(layer.inputs[0]);
        if (x.size() == 4 && axis_end == 2 && axis_begin <= 1)
            affine_channels_[int(plan_.steps.size()) - 1] = int(x[1]);
    }

    // A BatchNorm's three blobs (mean, variance, moving-average factor), seeded as Caffe's
    // statistics would be; returns the first.
    int batch_norm_blobs(const std::string &layer, const std::vector<Shape> &shapes) {
        if (shapes.size() < 3)
            throw CompileError("layer '" + layer + "' has " + std::to_string(shapes.size()) +
                               " blobs; a BatchNorm has 3");
        FillerSpec mean = runtime_filler(Filler{}), variance = mean, factor = mean;
        mean.type = FillerType::BatchNormMean;
        variance.type = FillerType::BatchNormVariance;
        factor.value = 1.0f;
        const int first = int(plan_.blobs.size());
        int index = 0;
        for (const FillerSpec &filler : {mean, variance, factor}) {
            plan_.blobs.push_back(PlannedBlob{layer, index, shapes[size_t(index)], filler});
            index++;
        }
        return first;
    }

    void plan(const Layer &layer, const BatchNormParams &p) {
        const int64_t channels = shape(layer.inputs[0])[1];
        const ops::Epilogue fused = epilogue(p, false);
        if (p.folded_affines.empty()) {
            const int first = batch_norm_blobs(layer.name, layer.weight_shapes);
            channel_affine(layer, 1, 2, PlannedParam{Packing::BatchNormScale, first, channels, 0, 0, p.eps},
                           PlannedParam{Packing::BatchNormShift, first, channels, 0, 0, p.eps}, false, fused);
            return;
        }
        // With the Scales after it folded in: the identity map (scale 1, shift 0) with this
        // BatchNorm and the Scales applied to it in order, as to a product's weights and bias.
        std::vector<FoldedAffine> affines(1);
        as_fold(graph_, layer, &affines[0]);
        affines.insert(affines.end(), p.folded_affines.begin(), p.folded_affines.end());
        const int scale = folded_blob(layer, 3, channels, 1.0f);
        const int shift = fold_affines_into(layer, affines, scale, false, Filler{}, channels, 1, false);
        channel_affine(layer, 1, 2, PlannedParam{Packing::Copy, scale, channels},
                       PlannedParam{Packing::Copy, shift, channels}, false, fused);
    }

    void plan(const Layer &layer, const ScaleParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int a = canonical_axis(p.axis, x.size(), layer.name);
        if (layer.inputs.size() == 2) {
            // The scale is the second bottom, over x's axes from `a` on (shape inference checked
            // them); a bias is then the layer's only blob.
            const int end = a + int(shape(layer.inputs[1]).size());
            const int64_t channels = product(x, a, end);
            PlannedParam shift{Packing::Zeros, -1, channels};
            if (p.bias_term) shift = PlannedParam{Packing::Copy, add_blob(layer, 0, p.bias_filler), channels};
            channel_affine(layer, a, end, PlannedParam{}, shift, false, epilogue(p, false), layer.inputs[1]);
            return;
        }
        const int end = p.num_axes == -1 ? static_cast<int>(x.size()) : a + p.num_axes;
        const int64_t channels = product(x, a, end);
        const int scale = add_blob(layer, 0, p.filler);
        PlannedParam shift{Packing::Zeros, -1, channels};
        if (p.bias_term) shift = PlannedParam{Packing::Copy, add_blob(layer, 1, p.bias_filler), channels};
        channel_affine(layer, a, end, PlannedParam{Packing::Copy, scale, channels}, shift, false, epilogue(p, false));
    }

    // A rearrange step writing `out` from `in`: `strides` gives the input elements per step
    // along each of out's axes (outermost first, as shapes are), from input element `offset`.
    void rearrange(const Layer &layer, int in, int out, const std::vector<int64_t> &strides, int64_t offset) {
        rearrange(layer, flat_view(in), out, strides, offset);
    }
    void rearrange(const Layer &layer, const PlannedView &in, int out, const std::vector<int64_t> &strides,
                   int64_t offset) {
        const Shape &y = shape(out);
        if (y.size() > size_t(ops::kRearrangeAxes))
            fail(layer, "top '" + graph_.values[out].blob_name + "' has " + std::to_string(y.size()) +
                            " axes; cortado moves data in at most " + std::to_string(ops::kRearrangeAxes));
        ops::RearrangeShape s;
        s.extents.assign(ops::kRearrangeAxes, 1);
        s.strides.assign(ops::kRearrangeAxes, 0);
        for (size_t d = 0; d < y.size(); d++) {
            s.extents[d] = int(y[y.size() - 1 - d]);
            s.strides[d] = int(strides[y.size() - 1 - d]);
        }
        s.offset = int(offset);
        s.input_count = in.extents[0];
        const int k = kernel(layer, s);
        plan_.steps.push_back(
            PlannedStep{step_name(layer), k, {in, PlannedView{tensor_of(out), s.extents}}, tensor_of(out)});
    }

    void plan(const Layer &layer, const TransposeParams &p) {
        const std::vector<int64_t> in_strides = row_major_strides(shape(layer.inputs[0]));
        std::vector<int64_t> strides;
        for (int a : p.perm) strides.push_back(in_strides[a]);
        rearrange(layer, layer.inputs[0], layer.outputs[0], strides, 0);
    }

    void plan(const Layer &layer, const CropParams &p) {
        const std::vector<int64_t> in_strides = row_major_strides(shape(layer.inputs[0]));
        std::vector<int64_t> strides;
        int64_t offset = 0;
        for (size_t d = 0; d < in_strides.size(); d++) {
            // One element along an axis needs no stride (and a huge step would overflow one).
            strides.push_back(p.sizes[d] == 1 ? 0 : in_strides[d] * p.steps[d]);
            offset += p.starts[d] * in_strides[d];
        }
        rearrange(layer, layer.inputs[0], layer.outputs[0], strides, offset);
    }

    void plan(const Layer &layer, const SliceParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int a = canonical_axis(p.axis, x.size(), layer.name);
        const std::vector<int64_t> in_strides = row_major_strides(x);
        int64_t begin = 0;
        for (int out : layer.outputs) {
            rearrange(layer, layer.inputs[0], out, in_strides, begin * in_strides[a]);
            begin += shape(out)[a];
        }
    }

    // A constant used as data: its blob copied into the arena (as rearrange's identity).
    void plan(const Layer &layer, const ConstantParams &p) {
        const int64_t count = element_count(p.shape);
        const int blob = add_blob(layer, 0, Filler{});
        rearrange(layer, param_view(PlannedParam{Packing::Copy, blob, count}, {int(count)}), layer.outputs[0],
                  row_major_strides(p.shape), 0);
    }

    void plan(const Layer &layer, const ExpandParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const std::vector<int64_t> in_strides = row_major_strides(x);
        std::vector<int64_t> strides(p.shape.size(), 0);
        const size_t lead = p.shape.size() - x.size();
        for (size_t d = 0; d < x.size(); d++) strides[lead + d] = x[d] == 1 ? 0 : in_strides[d];
        rearrange(layer, layer.inputs[0], layer.outputs[0], strides, 0);
    }

    // PReLU: the affine map with the slopes as scale, on negative inputs alone; a shared slope is
    // one channel over the whole tensor.
    void plan(const Layer &layer, const PReLUParams &p) {
        const int64_t channels = layer.weight_shapes[0][0];
        const int slope = add_blob(layer, 0, p.filler);
        const int rank = static_cast<int>(shape(layer.inputs[0]).size());
        channel_affine(layer, p.channel_shared ? rank : 1, p.channel_shared ? rank : 2,
                       PlannedParam{Packing::Copy, slope, channels}, PlannedParam{Packing::Zeros, -1, channels}, true);
    }

    void plan(const Layer &layer, const BiasParams &p) {
        const Shape &x = shape(layer.inputs[0]);
        const int a = canonical_axis(p.axis, x.size(), layer.name);
        const int end = p.num_axes == -1 ? static_cast<int>(x.size()) : a + p.num_axes;
        const int64_t channels = product(x, a, end);
        const int bias = add_blob(layer, 0, p.filler);
        channel_affine(layer, a, end, PlannedParam{Packing::Ones, -1, channels},
                       PlannedParam{Packing::Copy, bias, channels});
    }

    // Whether convolution step `step` can read (as_input) or write its tensor channel-blocked in
    // blocks of `block`: its variant handles blocks, and its tiles hold whole blocks. A residual
    // sum reads its residual in the output's layout, so block_channels blocks both or neither.
    bool conv_takes_blocks(int step, int block, bool as_input) const {
        const ops::Conv2dShape &s = conv_shapes_.at(step);
        const ops::Choice &choice = plan_.kernels[plan_.steps[step].kernel].choice;
        const auto *variant = family_.op<ops::Conv2dShape>().find(choice.variant);
        if (!variant || !variant->channel_blocks) return false;
        // Winograd's transforms run along whole vectors of channels.
        if (block < info_.float_lanes() && choice.form.is(ops::Algorithm::Winograd)) return false;
        if (as_input) return s.in_channels % block == 0;
        if (s.out_channels % block != 0 || ops::panel_width(choice) % block != 0) return false;
        if (choice.form.is(ops::Algorithm::Winograd)) {
            // Transformed by blocks of col_block channels, or of whole groups, from
            // channel-innermost products (generators/conv2d_winograd.h).
            const int channels = s.group > 1 ? s.out_channels / s.group : choice.knobs.get("col_block");
            return choice.knobs.has("channel_products") && choice.knobs.get("channel_products") &&
                   channels % block == 0;
        }
        const bool gemm = choice.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes);
        return !gemm || choice.knobs.get("col_block") % block == 0;
    }

    // Whether step `step` can read (as_input) or write its tensor channel-blocked: a convolution
    // (conv_takes_blocks), or a pooling or a channel affine map whose variant handles blocks, on
    // whole blocks.
    bool takes_blocks(int step, int block, bool as_input) const {
        if (conv_shapes_.count(step)) return conv_takes_blocks(step, block, as_input);
        const std::string &variant = plan_.kernels[plan_.steps[step].kernel].choice.variant;
        if (const auto pooling = pooling_shapes_.find(step); pooling != pooling_shapes_.end()) {
            const auto *spec = family_.op<ops::PoolingShape>().find(variant);
            return spec && spec->channel_blocks && pooling->second.channels % block == 0;
        }
        if (const auto affine = affine_channels_.find(step); affine != affine_channels_.end()) {
            const auto *spec = family_.op<ops::ChannelAffineShape>().find(variant);
            return spec && spec->channel_blocks && affine->second % block == 0;
        }
        return false;
    }

    // The steps that write blocks only from a blocked input (their lanes would gather across
    // planes from NCHW): poolings and channel affine maps.
    std::vector<int> blocked_from_blocks_steps() const {
        std::vector<int> steps;
        for (const auto &[step, shape] : pooling_shapes_) steps.push_back(step);
        for (const auto &[step, channels] : affine_channels_) steps.push_back(step);
        return steps;
    }

    // Whether a 1x1 convolution with channels in the lanes (a GEMM) would read its input in blocks
    // whose planes start a multiple of 4 KiB apart (56x56 maps in blocks of 16 floats), more than
    // four of them per K block: its register tiles broadcast from every plane at the same offset,
    // the planes fall in the same L1 sets and evict the weight panel. Read NCHW, a 56x56 map's
    // planes lie 12.25 KiB apart (docs/PERFORMANCE.md).
    bool aliasing_gemm_input(int step, int block) const {
        const auto conv = conv_shapes_.find(step);
        if (conv == conv_shapes_.end()) return false;
        const ops::Choice &choice = plan_.kernels[plan_.steps[step].kernel].choice;
        if (!choice.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes)) return false;
        const int64_t plane_bytes = int64_t(conv->second.in_h) * conv->second.in_w * block * 4;
        const int planes = std::min(conv->second.in_channels, choice.knobs.get("k_block")) / block;
        return plane_bytes % 4096 == 0 && planes > 4;
    }

    // The view through which convolution step `step` reads the residual of its fused sum, or -1.
    int residual_view(int step) const {
        if (!conv_shapes_.count(step)) return -1;
        const PlannedStep &planned = plan_.steps[step];
        if (!plan_.kernels[planned.kernel].choice.epilogue.sum) return -1;
        return int(planned.views.size()) - 2;  // (input, weights, bias, residual, output)
    }

    // Whether this plan's activations may be channel-blocked: on CPU families other than HVX's,
    // unless the options keep every activation NCHW.
    bool blocks_channels() const {
        return gpu_api(info_.halide_target).empty() && info_.family != "hvx" && layouts_ != ActivationLayouts::Nchw;
    }

    // The channel blocks a tensor may take, largest first: one vector of channels, and on
    // targets of 16 lanes or more also half of one, for tensors whose channels are not whole
    // vectors (MobileNetV3's 72 and 40, EfficientNet's 24): a half-vector store still beats a
    // scalar store per channel plane.
    std::vector<int> candidate_blocks() const {
        const int lanes = info_.float_lanes();
        return lanes >= 16 ? std::vector<int>{lanes, lanes / 2} : std::vector<int>{lanes};
    }

    // Channel-blocked activations (ops::Layout), in blocks of one vector (or half of one, above),
    // where they pay: a tensor that one such convolution, pooling or affine map writes and only
    // such steps read, as their input or as the residual of a convolution's fused sum. A residual
    // and the sum's output share a layout, so a chain of residual blocks (ResNet's) is blocked as
    // a whole, in one block size, or not at all. A pooling or an affine map writes blocks only
    // from an input in the same blocks: from NCHW its lanes would gather across planes. The
    // layout then changes nowhere, so no transform runs; the network's input and output, tensors
    // that other steps read and tensors that share storage (in-place layers) stay NCHW. A
    // concatenation placed in place (concatenate_in_place) along the channels is a group with its
    // inputs: blocked together, each input a whole number of blocks, or none of them.
    void block_channels() {
        if (!blocks_channels()) return;
        const std::vector<int> blocks = candidate_blocks();
        const size_t tensors = plan_.tensors.size();
        std::vector<std::vector<std::pair<int, size_t>>> readers(tensors);  // (step, view)
        std::vector<int> storage_users(tensors, 0);
        for (size_t t = 0; t < tensors; t++) storage_users[storage_of_[t]]++;
        for (int s = 0; s < int(plan_.steps.size()); s++)
            for (size_t v = 0; v + 1 < plan_.steps[s].views.size(); v++)
                if (plan_.steps[s].views[v].tensor >= 0) readers[plan_.steps[s].views[v].tensor].emplace_back(s, v);
        const std::vector<int> from_blocks = blocked_from_blocks_steps();
        std::vector<int> blocking_steps = from_blocks;
        for (const auto &[step, shape] : conv_shapes_) blocking_steps.push_back(step);
        // Concatenations placed along the channels; their inputs are read through them only.
        std::vector<const ConcatSlices *> placed;
        std::vector<bool> placed_input(tensors, false);
        for (const ConcatSlices &c : concats_)
            if (c.channels && plan_.steps[c.step].kernel < 0) {
                placed.push_back(&c);
                for (const int in : c.inputs) placed_input[in] = true;
            }
        // Whether every step that reads `t` reads it in blocks of `block`; nothing but a placed
        // concatenation reading it counts as every step.
        const auto readers_take = [&](int t, int block) {
            if (readers[t].empty() && !placed_input[t]) return false;
            for (const auto &[reader, view] : readers[t])
                if (!((view == 0 && takes_blocks(reader, block, true) && !aliasing_gemm_input(reader, block)) ||
                      int(view) == residual_view(reader)))
                    return false;
            return true;
        };
        const auto own_storage = [&](int t) {
            return t != plan_.output_tensor && storage_of_[t] == t && storage_users[t] == 1;
        };
        // Each tensor's own conditions, per block size: may_block[i][t] for blocks[i].
        std::vector<std::vector<bool>> may_block(blocks.size(), std::vector<bool>(tensors, false));
        for (size_t i = 0; i < blocks.size(); i++) {
            for (const int step : blocking_steps) {
                const int t = plan_.steps[step].output_tensor;
                may_block[i][t] = own_storage(t) && takes_blocks(step, blocks[i], false) && readers_take(t, blocks[i]);
            }
            for (const ConcatSlices *c : placed) {
                bool whole_blocks = true;  // then the output's channels, their sum, are too
                for (const int in : c->inputs)
                    whole_blocks = whole_blocks && plan_.tensors[in].shape[1] % blocks[i] == 0;
                may_block[i][c->output] = whole_blocks && own_storage(c->output) && readers_take(c->output, blocks[i]);
            }
        }
        // Residuals and their sums' outputs, grouped: a group takes the largest block all of it
        // may take.
        std::vector<int> group(tensors);
        for (size_t t = 0; t < tensors; t++) group[t] = int(t);
        const auto root = [&](int t) {
            while (group[t] != t) t = group[t] = group[group[t]];
            return t;
        };
        for (const auto &[step, shape] : conv_shapes_)
            if (const int v = residual_view(step); v >= 0)
                group[root(plan_.steps[step].views[v].tensor)] = root(plan_.steps[step].output_tensor);
        for (const ConcatSlices *c : placed)
            for (const int in : c->inputs) group[root(in)] = root(c->output);
        std::vector<std::vector<bool>> group_may_block(blocks.size(), std::vector<bool>(tensors, true));
        for (size_t i = 0; i < blocks.size(); i++)
            for (size_t t = 0; t < tensors; t++)
                if (!may_block[i][t]) group_may_block[i][root(int(t))] = false;
        std::vector<int> block_of(tensors, 0);  // 0: NCHW
        // A pooling's or an affine map's output is blocked only in its input's blocks; each round
        // rules out block sizes for groups, so it ends.
        for (bool changed = true; changed;) {
            for (size_t t = 0; t < tensors; t++) {
                block_of[t] = 0;
                for (size_t i = 0; i < blocks.size() && !block_of[t]; i++)
                    if (may_block[i][t] && group_may_block[i][root(int(t))]) block_of[t] = blocks[i];
            }
            changed = false;
            for (const int step : from_blocks) {
                const int in = plan_.steps[step].views.front().tensor, out = plan_.steps[step].output_tensor;
                if (!block_of[out] || block_of[out] == block_of[in]) continue;
                for (size_t i = 0; i < blocks.size(); i++)
                    if (blocks[i] != block_of[in]) group_may_block[i][root(out)] = false;
                changed = true;
            }
        }
        for (const int step : blocking_steps) {
            PlannedStep &planned = plan_.steps[step];
            const int in = planned.views.front().tensor, out = planned.output_tensor;
            if (!block_of[in] && !block_of[out]) continue;
            KernelInstance instance = plan_.kernels[planned.kernel];
            // The NCHW views, blocked (ops::layout_extents): the channels are the third axis of
            // (W, H, C, N) and the second of the GEMM forms' (pixels, C, N, 1) and of the affine
            // maps' (inner, channels, outer).
            const bool gemm =
                instance.choice.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes) || affine_channels_.count(step);
            // Pooling's and Winograd's outputs are seen as (W, H, C, N) too.
            const bool spatial_output =
                pooling_shapes_.count(step) || instance.choice.form.is(ops::Algorithm::Winograd);
            if (block_of[in]) {
                instance.choice.layout_in.channel_block = block_of[in];
                PlannedView &view = planned.views.front();
                view.extents = ops::layout_extents(instance.choice.layout_in, view.extents, gemm ? 1 : 2);
            }
            if (block_of[out]) {
                instance.choice.layout_out.channel_block = block_of[out];
                PlannedView &view = planned.views.back();
                view.extents = ops::layout_extents(instance.choice.layout_out, view.extents, spatial_output ? 2 : 1);
                plan_.tensors[out].channel_block = block_of[out];
                // The residual, in the same group, is blocked too and seen as the output is.
                if (const int v = residual_view(step); v >= 0) planned.views[v].extents = view.extents;
            }
            const std::string key = instance.signature();
            if (!kernel_index_.count(key)) {
                plan_.kernels.push_back(std::move(instance));
                kernel_index_[key] = int(plan_.kernels.size()) - 1;
            }
            planned.kernel = kernel_index_[key];
        }
        for (const ConcatSlices *c : placed) plan_.tensors[c->output].channel_block = block_of[c->output];
        drop_unused_kernels();
    }

  public:
    // After run(): the default-ruled convolutions that read and write NCHW only, each with the
    // variant of the family that would compute it in channel blocks; and of the layers moved to
    // such a variant, those whose output was then blocked.
    const std::map<std::string, std::string> &movable() const { return movable_; }
    const std::map<std::string, std::string> &moved_and_blocked() const { return moved_and_blocked_; }
    // After run(): the default-ruled convolutions that read and write NCHW, each with the variant
    // the family's rule takes for NCHW where that differs (OpSpace::nchw_variant).
    const std::map<std::string, std::string> &nchw_moves() const { return nchw_moves_; }

  private:
    // The variant that computes convolution `s` in channel blocks where the default's cannot: a
    // 1x1 layer the GEMM with channels in the lanes, a depthwise layer or one whose groups take
    // whole vectors of output channels a convolution with channels in the lanes ("" if none).
    std::string blocked_variant(const ops::Conv2dShape &s) const {
        const bool pointwise = ops::is_strided_pointwise(s);
        const bool lanes_fit = ops::reads_own_channel(s) || ops::panel_fits_groups(s, info_.float_lanes());
        for (const auto &v : family_.op<ops::Conv2dShape>().variants) {
            if (!v.channel_blocks || (v.unsupported && !v.unsupported(s).empty())) continue;
            if (pointwise ? v.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes)
                          : v.form.is(ops::Algorithm::ChannelLanes) && lanes_fit)
                return v.name;
        }
        return "";
    }

    void note_movable_layers() {
        const auto &nchw_variant = family_.op<ops::Conv2dShape>().nchw_variant;
        for (const auto &[step, shape] : conv_shapes_) {
            const PlannedStep &planned = plan_.steps[step];
            if (!nchw_variant || plan_.kernels[planned.kernel].variant_source != kDefaultRuleSource) continue;
            if (plan_.tensors[planned.views.front().tensor].channel_block > 0 ||
                plan_.tensors[planned.output_tensor].channel_block > 0)
                continue;
            if (const std::string to = nchw_variant(shape, info_); !to.empty()) nchw_moves_[step_layers_.at(step)] = to;
        }
        if (!blocks_channels()) return;
        for (const auto &[step, shape] : conv_shapes_) {
            const PlannedStep &planned = plan_.steps[step];
            const KernelInstance &k = plan_.kernels[planned.kernel];
            const std::string &layer = step_layers_.at(step);
            const auto *variant = family_.op<ops::Conv2dShape>().find(k.choice.variant);
            if (k.variant_source == kDefaultRuleSource && variant && !variant->channel_blocks)
                if (const std::string to = blocked_variant(shape); !to.empty()) movable_[layer] = to;
            if (k.variant_source == kLayoutRuleSource && plan_.tensors[planned.output_tensor].channel_block > 0)
                moved_and_blocked_[layer] = k.choice.variant;
        }
    }

    void drop_unused_kernels() {
        std::vector<int> renumbered(plan_.kernels.size(), -1);
        std::vector<KernelInstance> used;
        for (PlannedStep &step : plan_.steps) {
            if (step.kernel < 0) continue;
            if (renumbered[step.kernel] < 0) {
                renumbered[step.kernel] = int(used.size());
                used.push_back(plan_.kernels[step.kernel]);
            }
            step.kernel = renumbered[step.kernel];
        }
        plan_.kernels = std::move(used);
        kernel_index_.clear();
        for (size_t k = 0; k < plan_.kernels.size(); k++) kernel_index_[plan_.kernels[k].signature()] = int(k);
    }

    // The storage `storage` lives in at the top, and its offset there (placed_in_).
    std::pair<int, int64_t> top_storage(int storage) const {
        int64_t offset = 0;
        while (placed_in_[storage].first >= 0) {
            offset += placed_in_[storage].second;
            storage = placed_in_[storage].first;
        }
        return {storage, offset};
    }

    // Whether every step that reads or writes the tensors in storage `top` can take them with
    // their images a stride apart (at batch > 1, a slice of each image of a concatenation): a
    // generator that declares its activations with require_activation_shape, and a view whose
    // image is its outermost dimension (batch_dimension).
    bool batch_strides_allowed(int top, int batch) const {
        // The generators that declare activations with require_activation_shape. Those of
        // conv2d, conv2d_int8, pooling, lrn and deconv2d pass it the shape's batch, the image
        // count; those of concat, channel_affine and inner_product the view's last extent (outer,
        // rows), which is the image count only where the view's last dimension indexes the images.
        static const std::set<std::string> batch_ops = {"conv2d",  "conv2d_int8", "conv2d_fp16",
                                                        "pooling", "lrn",         "deconv2d"};
        static const std::set<std::string> last_extent_ops = {"concat", "channel_affine", "inner_product"};
        for (size_t t = 0; t < plan_.tensors.size(); t++) {
            if (top_storage(storage_of_[t]).first != top) continue;
            const PlannedTensor &tensor = plan_.tensors[t];
            if (int(t) == plan_.output_tensor || tensor.shape.empty() || tensor.shape[0] != batch) return false;
            for (const auto &[s, view] : views_of_[t]) {
                const PlannedStep &step = plan_.steps[s];
                if (step.kernel < 0) continue;  // a concatenation placed already: its views are gone
                const PlannedView &v = step.views[view];
                const std::string &op = plan_.kernels[step.kernel].op;
                const int d = batch_dimension(v, tensor);
                const bool last = d == int(v.extents.size()) - 1;
                if (d < 0 || !(batch_ops.count(op) || (last_extent_ops.count(op) && last))) return false;
            }
        }
        return true;
    }

    // The view's dimension that indexes the image (ops::batch_dimension, as the generators find
    // it), provided the dimensions inside it are one image; -1 otherwise.
    static int batch_dimension(const PlannedView &v, const PlannedTensor &tensor) {
        const int64_t batch = tensor.shape.empty() ? 0 : tensor.shape[0];
        const int d = ops::batch_dimension(v.extents, batch);
        if (d < 0) return -1;
        int64_t image = 1;
        for (int i = 0; i < d; i++) image *= v.extents[i];
        return image * batch == element_count(tensor.shape) ? d : -1;
    }

    // Concatenations whose inputs can be written where the concatenation keeps them: each input's
    // storage (or the concatenation it already lies in, as DenseNet's growing concatenations
    // share one buffer) is placed in the output's at its slice, and the Concat step runs no
    // kernel. At batch > 1 a slice repeats in every image, so the tensors placed take a batch
    // stride, and every step that touches them must accept one. Only storage one kernel writes
    // moves (not the network's input, which the caller fills); OpenCL places only at offsets its
    // sub-buffers can start on. It runs before block_channels, which then blocks a placed
    // concatenation's inputs and output together or not at all: a slice of whole blocks lies at the
    // same offset in the blocked layout as in NCHW.
    void concatenate_in_place() {
        const std::string api = gpu_api(info_.halide_target);
        // CUDA's vector loads want 16-byte alignment; OpenCL sub-buffers the 1 KiB place_tensors uses.
        const int64_t align = api == "opencl" ? kGpuAlignFloats : api == "cuda" ? 4 : 1;
        const size_t storages = storage_of_.size();
        std::vector<int> writers(storages, 0);
        std::vector<int64_t> floats(storages, 0);
        for (const PlannedStep &step : plan_.steps)
            if (step.kernel >= 0) writers[storage_of_[step.output_tensor]]++;
        for (size_t t = 0; t < plan_.tensors.size(); t++)
            floats[storage_of_[t]] = std::max(floats[storage_of_[t]], element_count(plan_.tensors[t].shape));
        placed_in_.assign(storages, {-1, 0});
        views_of_.assign(plan_.tensors.size(), {});
        for (size_t s = 0; s < plan_.steps.size(); s++)
            for (size_t v = 0; v < plan_.steps[s].views.size(); v++)
                if (plan_.steps[s].views[v].tensor >= 0)
                    views_of_[plan_.steps[s].views[v].tensor].push_back({int(s), int(v)});
        std::vector<bool> concatenation(storages, false);  // written only through its placed inputs
        for (const ConcatSlices &c : concats_) {
            const int root = storage_of_[c.output];
            if (writers[root] != 1) continue;
            // Each input's top storage, moved as one piece: where it goes and how much of it the
            // inputs cover.
            std::map<int, std::pair<int64_t, int64_t>> pieces;
            bool fits = true;
            for (size_t i = 0; i < c.inputs.size() && fits; i++) {
                const auto [top, offset] = top_storage(storage_of_[c.inputs[i]]);
                const int64_t at = c.offsets[i] - offset;
                const auto [it, fresh] = pieces.emplace(top, std::pair<int64_t, int64_t>{at, 0});
                it->second.second += element_count(plan_.tensors[c.inputs[i]].shape);
                fits = top != root && (fresh || it->second.first == at);
            }
            // At batch > 1 each piece covers its slice of every image: piece.second counts them all.
            // CUDA's vector loads want every image's slice aligned; an OpenCL sub-buffer only its start.
            const int64_t image = floats[root] / c.batch;
            fits = fits && (c.batch == 1 || api != "cuda" || image % align == 0);
            // A piece whose slices already repeat in every image (placed at batch > 1) goes only
            // into a concatenation that repeats them the same way, along the channels.
            for (const auto &[top, piece] : pieces)
                fits = fits && top != storage_of_[plan_.input_tensor] && writers[top] == (concatenation[top] ? 0 : 1) &&
                       piece.second == floats[top] && piece.first % align == 0 &&
                       (c.batch == 1 ? !batched_roots_.count(top) : batch_strides_allowed(top, c.batch));
            if (!fits) continue;
            for (const auto &[top, piece] : pieces) placed_in_[top] = {root, piece.first};
            if (c.batch > 1) batched_roots_.insert(root);
            writers[root] = 0;
            concatenation[root] = true;
            PlannedStep &step = plan_.steps[c.step];
            step.kernel = -1;
            step.views.clear();
            step.in_place = true;
        }
        drop_unused_kernels();
        give_batch_strides(floats);
    }

    // Each tensor placed in a concatenation at batch > 1 steps by that concatenation's image, and
    // so do the views of it.
    void give_batch_strides(const std::vector<int64_t> &floats) {
        for (size_t t = 0; t < plan_.tensors.size(); t++) {
            PlannedTensor &tensor = plan_.tensors[t];
            const int top = top_storage(storage_of_[t]).first;
            if (!batched_roots_.count(top)) continue;
            const int64_t image = floats[top] / tensor.shape[0];
            if (image != element_count(tensor.shape) / tensor.shape[0]) tensor.batch_stride = image;
        }
        bool restrided = false;
        for (PlannedStep &step : plan_.steps) {
            bool strided = false;
            for (PlannedView &v : step.views) {
                if (v.tensor < 0 || plan_.tensors[v.tensor].batch_stride == 0) continue;
                v.batch_dim = batch_dimension(v, plan_.tensors[v.tensor]);
                v.batch_stride = plan_.tensors[v.tensor].batch_stride;
                strided = true;
            }
            // Its kernel takes the images' stride at run time (a kernel of its own: the same
            // kernel may serve dense steps, which keep the code they had).
            if (!strided || plan_.kernels[step.kernel].choice.batch_strided) continue;
            KernelInstance instance = plan_.kernels[step.kernel];
            instance.choice.batch_strided = true;
            const auto [it, fresh] = kernel_index_.emplace(instance.signature(), int(plan_.kernels.size()));
            if (fresh) plan_.kernels.push_back(std::move(instance));
            step.kernel = it->second;
            restrided = true;
        }
        if (restrided) drop_unused_kernels();
    }

    // Per top storage: its floats and the steps from its first write to its last read (the
    // network's input from step -1, its output to the step count); untouched storage (an unused
    // alias root) needs no bytes.
    std::vector<StorageRequest> storage_lifetimes() const {
        const int steps = static_cast<int>(plan_.steps.size());
        std::vector<StorageRequest> requests(storage_of_.size(), StorageRequest{0, steps, -1});
        auto touch = [&](int tensor, int step) {
            const auto [top, offset] = top_storage(storage_of_[tensor]);
            StorageRequest &r = requests[top];
            r.floats = std::max(r.floats, offset + tensor_span(plan_.tensors[tensor]));
            r.first_step = std::min(r.first_step, step);
            r.last_step = std::max(r.last_step, step);
        };
        touch(plan_.input_tensor, -1);
        for (int s = 0; s < steps; s++) {
            for (const PlannedView &v : plan_.steps[s].views)
                if (v.tensor >= 0) touch(v.tensor, s);
            touch(plan_.steps[s].output_tensor, s);
        }
        touch(plan_.output_tensor, steps);
        for (StorageRequest &r : requests)
            if (r.last_step < r.first_step) r = StorageRequest{0, 0, 0};
        return requests;
    }

    void place_tensors() {
        const std::vector<StorageRequest> requests = storage_lifetimes();
        // GPU tensors are views into one device allocation: OpenCL sub-buffers must start on
        // the device's base-address alignment (512 bytes on NVIDIA), so align to 1 KiB there.
        const std::vector<int64_t> offsets =
            place_storage(requests, &plan_.arena_floats, gpu_api(info_.halide_target).empty() ? 16 : kGpuAlignFloats);
        for (size_t t = 0; t < plan_.tensors.size(); t++) {
            const auto [top, offset] = top_storage(storage_of_[t]);
            plan_.tensors[t].offset = offsets[top] + offset;
            plan_.tensors[t].storage = top;
        }
    }

    // A convolution that adds a residual writes its output over the residual where it is the
    // residual's last reader and its variant writes each output element once (CPU families).
    // The epilogue reads the residual at the element it writes, and before it (generators/gemm.h,
    // residual_at), so the two may share bytes; the stores then find their lines in cache, where
    // a fresh buffer costs each line a read for ownership: on maps beyond the caches that is a
    // third of the sum's traffic. GPU kernels are left as they are: none was checked for it.
    void write_sums_over_residuals() {
        if (!gpu_api(info_.halide_target).empty()) return;
        const auto root = [&](int t) { return top_storage(storage_of_[t]).first; };
        std::vector<StorageRequest> lifetimes = storage_lifetimes();
        std::vector<bool> holds_slices(storage_of_.size(), false);  // a placed concatenation's storage
        for (size_t t = 0; t < placed_in_.size(); t++)
            if (placed_in_[t].first >= 0) holds_slices[top_storage(int(t)).first] = true;
        for (int s = 0; s < int(plan_.steps.size()); s++) {
            const int view = residual_view(s);
            if (view < 0) continue;
            PlannedStep &step = plan_.steps[s];
            const auto *variant = family_.op<ops::Conv2dShape>().find(plan_.kernels[step.kernel].choice.variant);
            if (!variant || !variant->writes_each_output_once) continue;
            const int residual = step.views[view].tensor, out = step.output_tensor;
            const int from = root(residual), to = storage_of_[out];
            const PlannedTensor &r = plan_.tensors[residual], &o = plan_.tensors[out];
            // The residual's storage lives from a step's write to this step's read (not the
            // network's input), whole; the output's is its own, not the network's output.
            if (lifetimes[from].first_step < 0 || lifetimes[from].last_step != s || from != storage_of_[residual] ||
                holds_slices[from] || to != out || placed_in_[to].first >= 0 || to == root(plan_.output_tensor) ||
                r.batch_stride || o.batch_stride || r.channel_block != o.channel_block ||
                tensor_span(r) != tensor_span(o))
                continue;
            // The step's input must not live there too (x + conv(x)).
            const auto &views = step.views;
            if (std::any_of(views.begin(), views.end() - 1, [&](const PlannedView &v) {
                    return &v != &views[view] && v.tensor >= 0 && root(v.tensor) == from;
                }))
                continue;
            for (int &storage : storage_of_)
                if (storage == to) storage = from;
            lifetimes[from].last_step = lifetimes[to].last_step;
            step.over_residual = true;
        }
    }

    static constexpr int64_t kGpuAlignFloats = 256;

    // A Concat that may run in place (ConcatParams::in_place): its step, output tensor, and
    // inputs with the offsets of their slices in the output.
    struct ConcatSlices {
        int step, output;
        int batch;      // images the slices repeat in (1: each slice is one range)
        bool channels;  // along the channels of (N, C, H, W) tensors: blocks may stay blocks
        std::vector<int> inputs;
        std::vector<int64_t> offsets;
    };

    const Graph &graph_;
    schedules::TargetInfo info_;
    const schedules::FamilySpace &family_;
    ActivationLayouts layouts_;
    ChoiceSources sources_;
    NetworkPlan plan_;
    std::map<int, int> tensor_index_;  // value id -> tensor index
    std::vector<int> storage_of_;      // tensor index -> storage root tensor index
    // storage root -> the storage root it was placed in (-1: none) and its offset there
    std::vector<std::pair<int, int64_t>> placed_in_;
    std::vector<ConcatSlices> concats_;
    std::set<int> batched_roots_;                             // concatenations placed in at batch > 1
    std::vector<std::vector<std::pair<int, int>>> views_of_;  // tensor -> (step, view) reading or writing it
    std::map<std::string, int> kernel_index_;
    std::map<int, ops::Conv2dShape> conv_shapes_;      // step index -> its convolution's shape
    std::map<int, ops::PoolingShape> pooling_shapes_;  // step index -> its pooling's shape
    std::map<int, int> affine_channels_;               // step index -> the channels of a channel affine map over NCHW's
    std::map<int, std::string> step_layers_;           // step index -> the (first) layer it computes
    std::map<std::string, std::string> moved_, movable_, moved_and_blocked_, nchw_moves_;  // layer -> variant
};

}  // namespace

ActivationLayouts parse_activation_layouts(const std::string &text, const std::string &source) {
    if (text == "blocked") return ActivationLayouts::Blocked;
    if (text == "nchw") return ActivationLayouts::Nchw;
    throw CompileError(source + " is '" + text +
                       "': nchw (every activation in Caffe's layout) or blocked (the default)");
}

KernelInstance plan_gemm(const ops::GemmShape &shape, const ops::Epilogue &epilogue, const PlanTarget &target,
                         const PlanOptions &options) {
    const schedules::TargetInfo info = resolve_plan_target(target);
    return choose_kernel(shape, epilogue, 0, info, schedules::families().at(info.family),
                         ChoiceSources{target, options});
}

// The default rules choose by shape, and some of their choices read and write NCHW only: a
// large 1x1 layer with pixels in the lanes, a shallow layer (a first layer on colour channels)
// or a depthwise one with output x in the lanes. Where such a layer's readers take channel blocks (ResNet's
// bottlenecks and stem, DenseNet's 1x1 before each 3x3, MobileNet's expansions and depthwise
// layers), the variant with channels in the lanes writes its output blocked, and the layers
// around it read whole blocks. Written NCHW, that variant's output costs a scalar store per
// channel plane, so the plan moves a layer only where its output is then blocked: it plans
// again with the moved set until every moved layer's output is (each round drops layers, so it
// ends). Records and knobs still decide first.
// Some default choices pay only on blocked tensors (CPU Winograd F(4x4) on small maps): a layer
// that reads and writes NCHW in the settled plan takes its family's NCHW variant instead, in one
// more planning. That planning is not checked again: moving a layer that stays NCHW can only let
// more tensors block, so the layers moved before keep their blocked outputs.
NetworkPlan plan_network(const Graph &graph, const std::string &name, const PlanTarget &target,
                         const PlanOptions &options) {
    Planner first(graph, target, options);
    NetworkPlan plan = first.run(name);
    std::map<std::string, std::string> moved = first.movable(), settled, nchw = first.nchw_moves();
    while (!moved.empty()) {
        Planner trial(graph, target, options, moved);
        NetworkPlan trial_plan = trial.run(name);
        if (trial.moved_and_blocked() == moved) {
            plan = std::move(trial_plan);
            settled = moved;
            nchw = trial.nchw_moves();
            break;
        }
        moved = trial.moved_and_blocked();
    }
    if (nchw.empty()) return plan;
    settled.insert(nchw.begin(), nchw.end());
    return Planner(graph, target, options, settled).run(name);
}

}  // namespace cortado
