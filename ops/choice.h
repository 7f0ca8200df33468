// How one op is computed: the variant a family registered (schedules/<family>/space.h) and what
// it computes (its form), its knob values, and what later passes and the runtime must agree on: the weight packing done
// at create time, the activation layouts, the fused epilogue and the numerical tolerance the
// variant is checked to. The planner fills it in (compiler/kernel_choice.h); the generator
// receives it with the op's shape, in one descriptor (op.h).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ops/activation.h"
#include "ops/field_text.h"
#include "ops/form.h"

namespace cortado::ops {

// Knob values by name, in the order the variant's knob space declares them.
struct Knobs {
    std::vector<std::pair<std::string, int>> values;

    bool has(const std::string &name) const {
        for (const auto &[key, value] : values)
            if (key == name) return true;
        return false;
    }
    int get(const std::string &name) const {
        for (const auto &[key, value] : values)
            if (key == name) return value;
        throw std::invalid_argument("no knob '" + name + "' in this choice");
    }
    void set(const std::string &name, int value) {
        for (auto &[key, old] : values)
            if (key == name) {
                old = value;
                return;
            }
        values.emplace_back(name, value);
    }
    bool operator==(const Knobs &other) const { return values == other.values; }
};

inline std::string field_value(const Knobs &knobs) {
    std::string text;
    for (const auto &[name, value] : knobs.values)
        text += (text.empty() ? "" : ",") + name + ":" + std::to_string(value);
    return text;
}
inline void parse_field(const std::string &text, Knobs &knobs) {
    knobs.values.clear();
    std::vector<std::string> items;
    parse_field(text, items);
    for (const std::string &item : items) {
        const size_t colon = item.find(':');
        if (colon == std::string::npos) throw std::invalid_argument("knob '" + item + "' is not name:value");
        int value = 0;
        parse_field(item.substr(colon + 1), value);
        knobs.values.emplace_back(item.substr(0, colon), value);
    }
}

// Weights as the runtime hands them to the kernel, packed once in NAME_create: Caffe's order, or
// the GEMM's panels (ops/gemm.h): the output-major weight matrix cut into panels of whole
// output channels, each stored k-major with the panel's channels innermost and the last panel
// zero-padded. ColumnPanels are read as the GEMM's vector operand (panel width: the `cols`
// knob), RowPanels as its broadcast operand (panel width: the `rows` knob).
// WinogradPanels: the weights transformed for Winograd (ops/winograd.h) and packed in column
// panels per position of the transform. Int8Panels: the int8 convolution's (ops/conv2d_int8.h),
// quantized, in panels of `cols` output channels. Fp16Panels: column panels of halves, the
// half-precision convolution's (ops/conv2d_fp16.h).
enum class WeightPacking { CaffeOrder, ColumnPanels, RowPanels, WinogradPanels, Int8Panels, Fp16Panels };
// Activation layout of a kernel's input or output tensor: Caffe's NCHW (channel_block 0), or
// channel-blocked, oneDNN's nChw<b>c: the channels in blocks of `channel_block`, each block an
// H x W map of pixels with the block's channels innermost. Kernels see a blocked tensor as the
// dense array (channel_block·W, H, C / channel_block, N), innermost first; C is a whole number
// of blocks (compiler/kernel_plan.cc only blocks such tensors).
struct Layout {
    int channel_block = 0;

    bool blocked() const { return channel_block > 0; }
    bool operator==(const Layout &other) const { return channel_block == other.channel_block; }
};

// The dense array a kernel sees for a tensor in layout `l` whose NCHW view is `extents`
// (innermost first, an image's pixels on the first axis, the channels on `channel_axis`):
// blocked, b times as long on the first axis and b times shorter on the channels.
inline std::vector<int> layout_extents(const Layout &l, std::vector<int> extents, size_t channel_axis) {
    if (l.blocked()) {
        extents[0] *= l.channel_block;
        extents[channel_axis] /= l.channel_block;
    }
    return extents;
}

inline std::string field_value(WeightPacking p) {
    switch (p) {
    case WeightPacking::ColumnPanels: return "column_panels";
    case WeightPacking::RowPanels: return "row_panels";
    case WeightPacking::WinogradPanels: return "winograd_panels";
    case WeightPacking::Int8Panels: return "int8_panels";
    case WeightPacking::Fp16Panels: return "fp16_panels";
    case WeightPacking::CaffeOrder: break;
    }
    return "caffe_order";
}
inline void parse_field(const std::string &text, WeightPacking &p) {
    if (text == "caffe_order") p = WeightPacking::CaffeOrder;
    else if (text == "column_panels") p = WeightPacking::ColumnPanels;
    else if (text == "row_panels") p = WeightPacking::RowPanels;
    else if (text == "winograd_panels") p = WeightPacking::WinogradPanels;
    else if (text == "int8_panels") p = WeightPacking::Int8Panels;
    else if (text == "fp16_panels") p = WeightPacking::Fp16Panels;
    else throw std::invalid_argument("unknown weight packing '" + text + "'");
}
inline std::string field_value(Layout l) {
    return l.blocked() ? "nchw" + std::to_string(l.channel_block) + "c" : "nchw";
}
inline void parse_field(const std::string &text, Layout &l) {
    l = Layout{};
    if (text == "nchw") return;
    const std::string digits = text.size() > 5 && text.compare(0, 4, "nchw") == 0 && text.back() == 'c'
                                   ? text.substr(4, text.size() - 5)
                                   : "";
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 3 ||
        std::stoi(digits) == 0)
        throw std::invalid_argument("unknown layout '" + text + "' (nchw, or nchw<b>c with b channels per block)");
    l.channel_block = std::stoi(digits);
}

// What runs on each output element after the op itself: Caffe's bias, then an optional sum with
// a residual (ResNet's shortcut: an element-wise sum fused from the next layer, whose other
// operand the kernel reads as one more input, shaped and laid out as its output), then an
// optional (leaky) ReLU, then an optional activation (ReLU6's Clip, HardSwish, Sigmoid: any
// ActivationFunction, with the parameters its ActivationShape reads; the shape's count is
// unused).
struct Epilogue {
    bool bias = false;
    bool sum = false;
    bool relu = false;
    float relu_slope = 0.0f;
    bool activation = false;
    ActivationShape activation_shape;
};

struct Choice {
    std::string variant;
    Form form;  // what the variant computes, as it registered (ops/form.h)
    Knobs knobs;
    WeightPacking weights = WeightPacking::CaffeOrder;
    Layout layout_in, layout_out;
    Epilogue epilogue;
    // Relative L2 error against the double-precision reference that the variant is held to:
    // 1e-5 for exact variants, larger (and documented with the variant) for approximate ones.
    float tolerance = 1e-5f;
    // Its activations' images lie a stride apart that the caller passes, not densely: a tensor
    // it reads or writes is a slice of a concatenation written in place at batch > 1
    // (generators/buffer_shape.h). Set by the planner, not by the variant's rules.
    bool batch_strided = false;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("variant", variant);
        visit("form", form);
        visit("knobs", knobs);
        visit("weights", weights);
        visit("layout_in", layout_in);
        visit("layout_out", layout_out);
        visit("bias", epilogue.bias);
        visit("sum", epilogue.sum);
        visit("relu", epilogue.relu);
        visit("relu_slope", epilogue.relu_slope);
        visit("activation", epilogue.activation);
        ActivationShape &a = epilogue.activation_shape;
        visit("activation_function", a.function), visit("activation_min", a.min), visit("activation_max", a.max);
        visit("activation_alpha", a.alpha), visit("activation_beta", a.beta), visit("activation_gamma", a.gamma);
        visit("tolerance", tolerance);
        visit("batch_strided", batch_strided);
    }
};

}  // namespace cortado::ops
