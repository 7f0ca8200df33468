#include "frontend/onnx_quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "frontend/int8_precision.h"
#include "onnx/onnx.pb.h"

namespace cortado {

namespace {

struct IntegerRange {
    int lowest, highest;
};

IntegerRange range_of(int data_type) {
    switch (data_type) {
    case onnx::TensorProto::UINT8: return {0, 255};
    case onnx::TensorProto::INT8: return {-128, 127};
    case onnx::TensorProto::UINT16: return {0, 65535};
    case onnx::TensorProto::INT16: return {-32768, 32767};
    case onnx::TensorProto::INT32: return {std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
    default:
        throw FoldError("quantization to " +
                        (onnx::TensorProto::DataType_IsValid(data_type)
                             ? onnx::TensorProto::DataType_Name(onnx::TensorProto::DataType(data_type))
                             : "element type " + std::to_string(data_type)) +
                        " is not supported (UINT8, INT8, UINT16, INT16 and, dequantized, INT32 are)");
    }
}

// The index along `how.axis` of element `i` of a tensor of `dims`.
int64_t axis_index(const Shape &dims, const LinearQuantization &how, int64_t i) {
    if (how.per_tensor()) return 0;
    int64_t inner = 1;
    for (size_t a = size_t(how.axis) + 1; a < dims.size(); a++) inner *= dims[a];
    return (i / inner) % dims[size_t(how.axis)];
}

}  // namespace

bool LinearQuantization::operator==(const LinearQuantization &other) const {
    return scales == other.scales && zero_points == other.zero_points && axis == other.axis && lowest == other.lowest &&
           highest == other.highest;
}

LinearQuantization linear_quantization(const OnnxTensor &scale, const OnnxTensor *zero_point, int64_t axis,
                                       const Shape &dims, int default_type) {
    LinearQuantization how;
    const IntegerRange range = range_of(zero_point && zero_point->data_type ? zero_point->data_type : default_type);
    how.lowest = range.lowest, how.highest = range.highest;
    if (scale.integer) throw FoldError("the scale is not floating-point");
    how.scales = scale.floats;
    if (zero_point) {
        if (!zero_point->integer) throw FoldError("the zero point is not an integer");
        how.zero_points = zero_point->integers;
        if (how.zero_points.size() != how.scales.size())
            throw FoldError("the zero point has " + std::to_string(how.zero_points.size()) + " values, the scale " +
                            std::to_string(how.scales.size()));
    } else {
        how.zero_points.assign(how.scales.size(), 0);
    }
    if (how.scales.empty()) throw FoldError("the scale is empty");
    if (how.scales.size() > 1) {  // one value, a scalar or 1-D, is per tensor whatever the axis
        const int64_t rank = int64_t(dims.size());
        if (axis < -rank || axis >= rank)
            throw FoldError("axis " + std::to_string(axis) + " is outside a tensor of rank " + std::to_string(rank));
        how.axis = axis < 0 ? axis + rank : axis;
        if (scale.dims.size() > 1 || int64_t(how.scales.size()) != dims[size_t(how.axis)])
            throw FoldError("the scale has " + std::to_string(how.scales.size()) + " values for an axis of " +
                            std::to_string(dims[size_t(how.axis)]));
    }
    for (float s : how.scales)
        if (!int8_scale_usable(s))
            throw FoldError("scale " + std::to_string(s) + " is not positive and finite with a finite reciprocal");
    for (int64_t z : how.zero_points)
        if (z < how.lowest || z > how.highest)
            throw FoldError("zero point " + std::to_string(z) + " is outside " + std::to_string(how.lowest) + ".." +
                            std::to_string(how.highest));
    return how;
}

OnnxTensor dequantize_constant(const OnnxTensor &q, const LinearQuantization &how) {
    if (!q.integer) throw FoldError("the quantized input is not integers");
    OnnxTensor out;
    out.dims = q.dims;
    out.floats.resize(q.integers.size());
    for (size_t i = 0; i < q.integers.size(); i++) {
        const int64_t c = axis_index(q.dims, how, int64_t(i));
        out.floats[i] = float(q.integers[i] - how.zero_points[size_t(c)]) * how.scales[size_t(c)];
    }
    return out;
}

OnnxTensor quantize_constant(const OnnxTensor &x, const LinearQuantization &how) {
    if (x.integer) throw FoldError("the input is not floating-point");
    OnnxTensor out;
    out.dims = x.dims;
    out.integer = true;
    out.integers.resize(x.floats.size());
    for (size_t i = 0; i < x.floats.size(); i++) {
        const int64_t c = axis_index(x.dims, how, int64_t(i));
        const float level = std::nearbyint(x.floats[i] / how.scales[size_t(c)]) + float(how.zero_points[size_t(c)]);
        // ONNX leaves a NaN's level undefined; it reads as the zero point, as the int8 kernels take it.
        out.integers[i] = std::isnan(level) ? how.zero_points[size_t(c)]
                                            : int64_t(std::clamp(level, float(how.lowest), float(how.highest)));
    }
    return out;
}

std::vector<float> scales_along_axis0(const LinearQuantization &how, int64_t count) {
    if (how.per_tensor()) return std::vector<float>(size_t(count), how.scales[0]);
    return how.scales;
}

}  // namespace cortado
